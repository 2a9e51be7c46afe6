package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progressDelay is how long reading a file may take before progress is
// shown; progressEvery is the interval between progress lines. Short reads
// (every test input) print nothing, so outputs stay deterministic.
// Variables for the tests.
var (
	progressDelay = 2 * time.Second
	progressEvery = 2 * time.Second
)

// progressReader reports on stderr how far a long read of a file got.
type progressReader struct {
	r     io.Reader
	name  string
	w     io.Writer
	size  int64 // 0 when unknown
	done  int64
	start time.Time
	next  time.Time
	shown bool
}

// newProgressReader wraps f; when reading it takes longer than
// progressDelay, it prints "zestall: reading NAME: 41% (120 of 290 MiB)"
// lines on w, and a final line when the end is reached.
func newProgressReader(f *os.File, name string, w io.Writer) io.Reader {
	p := &progressReader{r: f, name: name, w: w, start: time.Now()}
	p.next = p.start.Add(progressDelay)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		p.size = fi.Size()
	}
	return p
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	now := time.Now()
	switch {
	case err == io.EOF && p.shown:
		fmt.Fprintf(p.w, "zestall: read %s: %d MiB in %.1f s\n", p.name, p.done>>20, now.Sub(p.start).Seconds())
	case err == nil && now.After(p.next):
		p.shown = true
		p.next = now.Add(progressEvery)
		if p.size > 0 {
			fmt.Fprintf(p.w, "zestall: reading %s: %d%% (%d of %d MiB)\n", p.name, 100*p.done/p.size, p.done>>20, p.size>>20)
		} else {
			fmt.Fprintf(p.w, "zestall: reading %s: %d MiB\n", p.name, p.done>>20)
		}
	}
	return n, err
}
