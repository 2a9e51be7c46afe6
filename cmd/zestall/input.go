package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/zestall/zestall/proto/pbstream"
	"github.com/zestall/zestall/proto/stream"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// stdinName is the FILE argument that means standard input.
const stdinName = "-"

// inputRead is what reading one input found besides its records: the
// damaged stretches the reader skipped to go on with the next intact frame,
// and what stopped it before the end. Every command reads its inputs
// through readInput, so all of them report damage the same way.
type inputRead struct {
	path    string
	records int
	skipped []*stream.FormatError // damaged stretches read past (Resumed)
	final   error                 // what ended reading before the end, or nil
}

// skippedBytes is the size of the damaged stretches read past.
func (in *inputRead) skippedBytes() (n int64) {
	for _, fe := range in.skipped {
		n += fe.Skipped
	}
	return n
}

// errNoRecords: a file that holds no record at all.
var errNoRecords = errors.New("holds no records")

// maxShownSkips is how many damaged stretches an error names one by one.
const maxShownSkips = 3

// err says what is wrong with the input, or nil when it read completely:
// each damaged stretch skipped (the first few), what ended reading early,
// or that the file holds no record.
func (in *inputRead) err() error {
	var errs []error
	for i, fe := range in.skipped {
		if i == maxShownSkips {
			rest := in.skipped[i:]
			var n int64
			for _, fe := range rest {
				n += fe.Skipped
			}
			errs = append(errs, fmt.Errorf("%s: %d more damaged stretches skipped (%d bytes)", in.path, len(rest), n))
			break
		}
		errs = append(errs, fmt.Errorf("%s: %w", in.path, fe))
	}
	if in.final != nil {
		errs = append(errs, fmt.Errorf("%s: %w", in.path, in.final))
	}
	if in.records == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: %w (only the %d-byte file prefix: the run wrote nothing, or was killed before its first flush)", in.path, errNoRecords, stream.PrefixSize))
	}
	return errors.Join(errs...)
}

// damaged reports whether records of the input were lost (skipped
// stretches, or reading ended early).
func (in *inputRead) damaged() bool { return len(in.skipped) > 0 || in.final != nil }

// openInput opens FILE, or standard input for "-".
func openInput(path string) (*os.File, func(), error) {
	if path == stdinName {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// displayName is how messages name an input.
func displayName(path string) string {
	if path == stdinName {
		return "standard input"
	}
	return path
}

// readInput reads every intact record of path, in order, giving each to
// fn; it goes on after damage at the next intact frame. limit > 0 stops
// after that many records. Only an input that cannot be opened, or an
// error from fn, is returned as err; damage is in the inputRead.
func readInput(path string, stderr io.Writer, limit int, fn func(*pb.Record) error) (*inputRead, error) {
	f, closeFn, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	in := &inputRead{path: displayName(path)}
	var src io.Reader = f
	if stderr != nil {
		src = newProgressReader(f, in.path, stderr)
	}
	r := pbstream.NewReader(src)
	for limit <= 0 || in.records < limit {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		var fe *stream.FormatError
		if errors.As(err, &fe) && fe.Resumed {
			in.skipped = append(in.skipped, fe)
			continue
		}
		if err != nil {
			in.final = err
			break
		}
		in.records++
		if err := fn(rec); err != nil {
			return in, err
		}
	}
	return in, nil
}

// checkInputs refuses inputs that would be counted twice (the same file
// given twice, by the same or another path) and standard input where it
// cannot be read: it can be read once, so only as the only FILE, and not
// by merge, which reads each input twice (stdinOK false).
func checkInputs(files []string, stdinOK bool) error {
	type seen struct {
		name string
		fi   os.FileInfo
	}
	var stats []seen
	for _, f := range files {
		if f == stdinName {
			if !stdinOK {
				return usageError{"this command reads each FILE twice: it cannot read standard input (-); save it to a file first"}
			}
			if len(files) > 1 {
				return usageError{"standard input (-) can be read only once: give it as the only FILE"}
			}
			continue
		}
		fi, err := os.Stat(f)
		if err != nil {
			continue // opening it will say why
		}
		for _, s := range stats {
			if os.SameFile(s.fi, fi) {
				if s.name == f {
					return usageError{fmt.Sprintf("%s is given twice: its records would be counted twice", f)}
				}
				return usageError{fmt.Sprintf("%s and %s are the same file: its records would be counted twice", s.name, f)}
			}
		}
		stats = append(stats, seen{f, fi})
	}
	return nil
}
