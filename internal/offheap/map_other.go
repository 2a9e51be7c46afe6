//go:build !unix

package offheap

import "errors"

func mapAnon(size int) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmap(b []byte) {}
