//go:build !unix

package stream

// O_EXCL alone refuses an existing path; there is no O_NOFOLLOW here.
const oNoFollow = 0
