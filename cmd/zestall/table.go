package main

import (
	"io"
	"strings"
)

// table lays out rows of cells in columns: every column but the last is
// right-aligned to its widest cell; the last is left as it is. Raw lines
// (source lines between instructions) are printed as they are without
// breaking the columns, which text/tabwriter would do.
type table struct {
	rows [][]string // a nil row is the raw line at the same index of raw
	raw  []string
}

func (t *table) row(cells ...string) {
	t.rows = append(t.rows, cells)
	t.raw = append(t.raw, "")
}

func (t *table) line(s string) {
	t.rows = append(t.rows, nil)
	t.raw = append(t.raw, s)
}

func (t *table) write(w io.Writer) error {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			if i < len(r)-1 {
				width[i] = max(width[i], len(c))
			}
		}
	}
	var b strings.Builder
	for i, r := range t.rows {
		if r == nil {
			b.WriteString(t.raw[i])
			b.WriteByte('\n')
			continue
		}
		var l strings.Builder
		for j, c := range r {
			if j < len(r)-1 {
				l.WriteString(strings.Repeat(" ", width[j]-len(c)))
				l.WriteString(c)
				l.WriteString(" ")
			} else {
				l.WriteString(c)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
