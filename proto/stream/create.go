package stream

import (
	"os"
)

// CreateExclusive creates the file at path for writing a zestall file and
// returns it open for writing. It never overwrites: it fails (with an error
// satisfying errors.Is(err, fs.ErrExist)) when anything already exists at
// path, a dangling symbolic link included, and it never follows a symbolic
// link planted at path (O_CREAT|O_EXCL|O_NOFOLLOW). The file gets mode 0644
// less the process umask. The caller closes the file.
func CreateExclusive(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
}
