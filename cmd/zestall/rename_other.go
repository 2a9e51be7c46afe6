//go:build !linux

package main

import "errors"

// renameNoReplace has no portable form here: outputs need hard links.
func renameNoReplace(from, to string) error {
	return errors.New("no exclusive rename on this system")
}
