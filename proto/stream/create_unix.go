//go:build unix

package stream

import "syscall"

const oNoFollow = syscall.O_NOFOLLOW
