package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// Outputs (pprof, trace, merge) are written to a temporary file next to
// OUT and put in place only when complete: a failed write (a full disk, a
// file size limit, an interrupt) never leaves a partial OUT, and a retry
// is not refused because of one. OUT is never overwritten, not even when
// another process creates it while zestall writes: the complete file is
// linked to OUT, which fails if OUT exists (or renamed with
// RENAME_NOREPLACE where the file system has no hard links).

// checkOutput refuses an OUT that exists, before any work is done.
func checkOutput(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists: zestall never overwrites a file", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeOutput writes path with write, through a temporary file in the same
// directory that becomes path only when write and the flush to disk
// succeeded.
func writeOutput(path string, write func(w io.Writer) error) (err error) {
	if err := checkOutput(path); err != nil {
		return err
	}
	tmp, f, err := createTemp(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		forgetTemp(tmp)
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := placeNoReplace(tmp, path); err != nil {
		return err
	}
	return nil
}

// createTemp creates a new hidden file next to path (mode 0644 less the
// umask, like the profiler's own outputs) and registers it for removal on
// an interrupt.
func createTemp(path string) (string, *os.File, error) {
	dir, base := filepath.Split(path)
	for range 100 {
		var rnd [6]byte
		rand.Read(rnd[:])
		tmp := filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) // O_EXCL: never through a symbolic link
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		rememberTemp(tmp)
		return tmp, f, nil
	}
	return "", nil, fmt.Errorf("%s: cannot create a temporary file next to it", path)
}

// placeNoReplace makes the complete file tmp appear at path unless
// something exists there. tmp is gone afterwards in every case; when
// neither a hard link nor an exclusive rename is possible, the error says
// so.
func placeNoReplace(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		os.Remove(tmp)
		return fmt.Errorf("%s exists (created while zestall was writing): zestall never overwrites a file", path)
	}
	// No hard links here (some network and FAT file systems): an
	// exclusive rename, where the kernel and file system have one.
	if rerr := renameNoReplace(tmp, path); rerr == nil {
		return nil
	} else if errors.Is(rerr, fs.ErrExist) {
		os.Remove(tmp)
		return fmt.Errorf("%s exists (created while zestall was writing): zestall never overwrites a file", path)
	}
	os.Remove(tmp)
	return fmt.Errorf("%s: cannot put the output in place without risking overwriting a file (link: %v)", path, err)
}

// Temporary files to remove when zestall is interrupted.
var temps struct {
	sync.Mutex
	paths map[string]bool
	once  sync.Once
}

func rememberTemp(p string) {
	temps.once.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			s := <-c
			temps.Lock()
			for p := range temps.paths {
				os.Remove(p)
			}
			temps.Unlock()
			signal.Reset()
			fmt.Fprintf(os.Stderr, "zestall: %v: output not written\n", s)
			os.Exit(130)
		}()
	})
	temps.Lock()
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[p] = true
	temps.Unlock()
}

func forgetTemp(p string) {
	temps.Lock()
	delete(temps.paths, p)
	temps.Unlock()
}
