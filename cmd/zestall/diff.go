package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	top := fs.Int("top", 5, "changed instructions (or source lines) to show per kernel")
	noDisasm := fs.Bool("no-disasm", false, "do not disassemble (offsets and source lines only)")
	asJSON := fs.Bool("json", false, "print the comparison as one JSON object (schema zestall-diff/1)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall diff [--top N] [--no-disasm] [--json] OLD NEW

Compares two runs (before and after a change): per kernel the device time,
launches, mean device time per launch and EU stall samples, OLD -> NEW;
per kernel the stall reasons OLD -> NEW; and the instructions whose samples
changed most. Kernels are matched by name; whether their code is the same
is decided by the content hash of their module's native binary: for the
same code instructions are compared by offset (with IGA's text and the
source line), for changed code by source line (when both modules carry
debug info; offsets of different code mean nothing to each other).
Samples are counts, not rates: a longer run has more of them; the
reasons' shares of a kernel's samples compare runs of different length.
--json prints the same numbers, schema "zestall-diff/1" (cmd/zestall/diff.go).
OLD and NEW are zestall files (a merged file for several ranks); "-" is
not accepted (two inputs). Memory is that of two reports.`)
		fs.PrintDefaults()
	}
	files, err := parseFiles(fs, args, "diff takes two FILEs: OLD NEW", nil)
	if err != nil {
		return err
	}
	if len(files) != 2 {
		fs.Usage()
		return usageError{"diff takes two FILEs: OLD NEW"}
	}
	for _, f := range files {
		if f == stdinName {
			return usageError{"diff reads two files: standard input (-) cannot be one of them"}
		}
	}
	var ms [2]*runModel
	var codes [2]*codeCache
	var readErrs []error
	for i, f := range files {
		m, err := loadRuns([]string{f}, stderr)
		if err != nil {
			return err
		}
		ms[i] = m
		readErrs = append(readErrs, m.readErr)
		codes[i] = newCodeCache(m, stderr, false)
		if i == 0 {
			codes[i] = newCodeCache(m, stderr, !*noDisasm)
			defer codes[i].close()
		} else {
			codes[i].dis, codes[i].noIGA = codes[0].dis, codes[0].noIGA // one helper process, one message when it is missing
		}
	}
	d := buildDiff(files, ms, codes, *top)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(d); err != nil {
			return err
		}
	} else {
		writeDiff(stdout, d)
	}
	return errors.Join(readErrs...)
}

// jsonDiff is zestall diff's result; --json prints it as it is.
type jsonDiff struct {
	// Schema is "zestall-diff/1".
	Schema string `json:"schema"`
	// Old and New name the inputs.
	Old string `json:"old"`
	New string `json:"new"`
	// Metrics names the stall reasons (the union of both runs', OLD's
	// order first).
	Metrics []string `json:"metrics"`
	// Kernels by name, largest device time change first.
	Kernels []diffKernel `json:"kernels"`
}

// diffSide is one kernel's numbers in one run.
type diffSide struct {
	Present  bool    `json:"present"`
	Launches int     `json:"launches"`  // with device times
	DeviceNs uint64  `json:"device_ns"` // summed over them
	MeanNs   float64 `json:"mean_ns"`
	Samples  uint64  `json:"stall_samples"`
	// Reasons: samples by reason (non-zero only).
	Reasons map[string]uint64 `json:"reasons"`
	// CodeHashes: the content hashes (hex) of the kernel's modules.
	CodeHashes []string `json:"code_hashes"`
}

type diffKernel struct {
	Name string   `json:"name"`
	Old  diffSide `json:"old"`
	New  diffSide `json:"new"`
	// Code: "same" (equal content hashes), "changed", "old only",
	// "new only", or "unknown" (a module without content hash).
	Code string `json:"code"`
	// By: "instruction" (offsets compared, same code), "source line"
	// (changed code with debug info on both sides) or "" (not compared).
	By string `json:"by"`
	// Changed: the instructions or source lines whose samples changed
	// most (|new - old|), at most --top.
	Changed []diffPlace `json:"changed"`
}

type diffPlace struct {
	Offset      *uint64 `json:"offset"` // by instruction; null by source line
	Source      string  `json:"source"` // "file:line", "" when unknown
	Instruction string  `json:"instruction"`
	Old         uint64  `json:"old"`
	New         uint64  `json:"new"`
	// Reason: the reason whose samples changed most here, with its counts.
	Reason    string `json:"reason"`
	ReasonOld uint64 `json:"reason_old"`
	ReasonNew uint64 `json:"reason_new"`
}

// kernelSide gathers one run's numbers of the kernels of one name.
type kernelSide struct {
	diffSide
	first  *pb.Kernel
	hashes map[string]bool
	noHash bool
	offs   map[uint64][]uint64 // by reason name index into metrics
}

func collectSides(m *runModel, metrics []string) map[string]*kernelSide {
	col := map[string]int{}
	for i, n := range metrics {
		col[n] = i
	}
	out := map[string]*kernelSide{}
	get := func(k *pb.Kernel) *kernelSide {
		n := kernelName(k)
		s := out[n]
		if s == nil {
			s = &kernelSide{first: k, hashes: map[string]bool{}, offs: map[uint64][]uint64{}}
			s.Present = true
			out[n] = s
		}
		return s
	}
	for _, k := range m.kernels {
		s := get(k)
		s.Launches += m.timed[k.Id]
		s.DeviceNs += m.devNs[k.Id]
		if mod := m.moduleContent(k); mod != nil && len(mod.ContentHash) > 0 {
			s.hashes[hex.EncodeToString(mod.ContentHash)] = true
		} else {
			s.noHash = true
		}
	}
	for _, r := range m.stallOrder {
		k := m.kernelByID[r.kernel]
		if k == nil {
			continue
		}
		s := get(k)
		c := s.offs[r.off]
		if c == nil {
			c = make([]uint64, len(metrics))
			s.offs[r.off] = c
		}
		for j, v := range r.counts {
			c[col[m.metricName(j)]] += v
			s.Samples += v
		}
	}
	for _, s := range out {
		if s.Launches > 0 {
			s.MeanNs = float64(s.DeviceNs) / float64(s.Launches)
		}
		s.CodeHashes = []string{}
		for h := range s.hashes {
			s.CodeHashes = append(s.CodeHashes, h)
		}
		sort.Strings(s.CodeHashes)
	}
	return out
}

func buildDiff(files []string, ms [2]*runModel, codes [2]*codeCache, top int) *jsonDiff {
	d := &jsonDiff{Schema: "zestall-diff/1", Old: files[0], New: files[1], Kernels: []diffKernel{}}
	seen := map[string]bool{}
	for _, m := range ms {
		for _, n := range m.metrics {
			if !seen[n] {
				seen[n] = true
				d.Metrics = append(d.Metrics, n)
			}
		}
		// Rows with more columns than the header names (a damaged or
		// inconsistent file): their columns are "colN", still counted.
		for _, a := range m.stallOrder {
			for j := len(m.metrics); j < len(a.counts); j++ {
				if n := m.metricName(j); !seen[n] {
					seen[n] = true
					d.Metrics = append(d.Metrics, n)
				}
			}
		}
	}
	if d.Metrics == nil {
		d.Metrics = []string{}
	}
	old, neu := collectSides(ms[0], d.Metrics), collectSides(ms[1], d.Metrics)
	names := map[string]bool{}
	for n := range old {
		names[n] = true
	}
	for n := range neu {
		names[n] = true
	}
	reasonsOf := func(s *kernelSide) map[string]uint64 {
		out := map[string]uint64{}
		for _, c := range s.offs {
			for j, v := range c {
				if v > 0 {
					out[d.Metrics[j]] += v
				}
			}
		}
		return out
	}
	for n := range names {
		dk := diffKernel{Name: n, Changed: []diffPlace{}}
		o, nw := old[n], neu[n]
		for i, s := range []*kernelSide{o, nw} {
			side := diffSide{Reasons: map[string]uint64{}, CodeHashes: []string{}}
			if s != nil {
				side = s.diffSide
				side.Reasons = reasonsOf(s)
			}
			if i == 0 {
				dk.Old = side
			} else {
				dk.New = side
			}
		}
		switch {
		case o == nil:
			dk.Code = "new only"
		case nw == nil:
			dk.Code = "old only"
		case o.noHash || nw.noHash:
			dk.Code = "unknown"
		case strings.Join(o.CodeHashes, ",") == strings.Join(nw.CodeHashes, ","):
			dk.Code = "same"
		default:
			dk.Code = "changed"
		}
		if o != nil && nw != nil {
			dk.By, dk.Changed = changedPlaces(d.Metrics, dk.Code, [2]*kernelSide{o, nw}, codes, top)
		}
		d.Kernels = append(d.Kernels, dk)
	}
	absDelta := func(a, b float64) float64 {
		if a > b {
			return a - b
		}
		return b - a
	}
	sort.Slice(d.Kernels, func(i, j int) bool {
		a, b := d.Kernels[i], d.Kernels[j]
		da, db := absDelta(float64(a.Old.DeviceNs), float64(a.New.DeviceNs)), absDelta(float64(b.Old.DeviceNs), float64(b.New.DeviceNs))
		if da != db {
			return da > db
		}
		return a.Name < b.Name
	})
	return d
}

// changedPlaces compares a kernel's samples per instruction (same code) or
// per source line (changed code, debug info on both sides).
func changedPlaces(metrics []string, code string, s [2]*kernelSide, codes [2]*codeCache, top int) (string, []diffPlace) {
	var kcs [2]*kernelCode
	for i := range s {
		kcs[i] = codes[i].get(s[i].first)
	}
	type place struct {
		key string
		off *uint64
		src string
		ins string
		c   [2][]uint64
	}
	places := map[string]*place{}
	var by string
	switch {
	case code == "same":
		by = "instruction"
		for i := range s {
			for off, c := range s[i].offs {
				key := fmt.Sprint(off)
				p := places[key]
				if p == nil {
					o := off
					p = &place{key: key, off: &o}
					if row, ok := kcs[i].line(off); ok {
						p.src = fmt.Sprintf("%s:%d", filepath.Base(row.File), row.Line)
					}
					if in, ok := kcs[i].inst(off); ok {
						p.ins = in.text
					}
					places[key] = p
				}
				p.c[i] = c
			}
		}
	case kcs[0].lines != nil && kcs[1].lines != nil:
		by = "source line"
		for i := range s {
			for off, c := range s[i].offs {
				src := "(no source line)"
				if row, ok := kcs[i].line(off); ok {
					src = fmt.Sprintf("%s:%d", filepath.Base(row.File), row.Line)
				}
				p := places[src]
				if p == nil {
					p = &place{key: src, src: src}
					places[src] = p
				}
				if p.c[i] == nil {
					p.c[i] = make([]uint64, len(metrics))
				}
				for j, v := range c {
					p.c[i][j] += v
				}
			}
		}
	default:
		return "", []diffPlace{}
	}
	out := []diffPlace{}
	for _, p := range places {
		dp := diffPlace{Offset: p.off, Source: p.src, Instruction: p.ins, Old: sumCounts(p.c[0]), New: sumCounts(p.c[1])}
		var best uint64
		for j := range metrics {
			var a, b uint64
			if p.c[0] != nil {
				a = p.c[0][j]
			}
			if p.c[1] != nil {
				b = p.c[1][j]
			}
			if dd := max(a, b) - min(a, b); dd > best {
				best, dp.Reason, dp.ReasonOld, dp.ReasonNew = dd, metrics[j], a, b
			}
		}
		if dp.Old != dp.New {
			out = append(out, dp)
		}
	}
	delta := func(p diffPlace) uint64 { return max(p.Old, p.New) - min(p.Old, p.New) }
	sort.Slice(out, func(i, j int) bool {
		if a, b := delta(out[i]), delta(out[j]); a != b {
			return a > b
		}
		if out[i].Offset != nil && out[j].Offset != nil {
			return *out[i].Offset < *out[j].Offset
		}
		return out[i].Source < out[j].Source
	})
	if len(out) > top {
		out = out[:top]
	}
	return by, out
}

// change formats OLD -> NEW with the relative change.
func change(a, b float64, unit string, scale float64, prec int) string {
	s := fmt.Sprintf("%.*f -> %.*f%s", prec, a/scale, prec, b/scale, unit)
	switch {
	case a == 0 && b == 0:
	case a == 0:
		s += " (new)"
	default:
		s += fmt.Sprintf(" (%+.1f%%)", 100*(b-a)/a)
	}
	return s
}

func writeDiff(w io.Writer, d *jsonDiff) {
	fmt.Fprintf(w, "OLD: %s\nNEW: %s\n\n", d.Old, d.New)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KERNEL\tCODE\tDEVICE TIME\tLAUNCHES\tMEAN PER LAUNCH\tSTALL SAMPLES")
	for _, k := range d.Kernels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.Name, k.Code,
			change(float64(k.Old.DeviceNs), float64(k.New.DeviceNs), " ms", 1e6, 3),
			change(float64(k.Old.Launches), float64(k.New.Launches), "", 1, 0),
			change(k.Old.MeanNs, k.New.MeanNs, " us", 1e3, 2),
			change(float64(k.Old.Samples), float64(k.New.Samples), "", 1, 0))
	}
	tw.Flush()
	fmt.Fprintln(w, "  DEVICE TIME, LAUNCHES and MEAN are over the launches with device times; CODE compares the content hashes of the kernels' modules")
	for _, k := range d.Kernels {
		if k.Old.Samples == 0 && k.New.Samples == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: stall reasons, samples OLD -> NEW (share of the kernel's samples)\n", k.Name)
		var b bytes.Buffer
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range d.Metrics {
			a, n := k.Old.Reasons[r], k.New.Reasons[r]
			if a == 0 && n == 0 {
				continue
			}
			fmt.Fprintf(tw, "  %s\t%d (%.1f%%)\t->\t%d (%.1f%%)\n", r, a, 100*float64(a)/float64(max(k.Old.Samples, 1)), n, 100*float64(n)/float64(max(k.New.Samples, 1)))
		}
		tw.Flush()
		w.Write(b.Bytes())
		switch {
		case k.Code == "old only" || k.Code == "new only":
		case k.By == "":
			fmt.Fprintln(w, "  instructions not compared: the code changed and a module has no debug info (offsets of different code mean nothing to each other)")
		case len(k.Changed) == 0:
			fmt.Fprintf(w, "  no %s's samples changed\n", k.By)
		default:
			fmt.Fprintf(w, "  %ss whose samples changed most (code %s):\n", k.By, k.Code)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			if k.By == "instruction" {
				fmt.Fprintln(tw, "  OFFSET\tOLD\tNEW\tMOST CHANGED REASON\tSOURCE\tINSTRUCTION")
			} else {
				fmt.Fprintln(tw, "  SOURCE\tOLD\tNEW\tMOST CHANGED REASON")
			}
			for _, p := range k.Changed {
				reason := fmt.Sprintf("%s %d -> %d", p.Reason, p.ReasonOld, p.ReasonNew)
				if p.Offset != nil {
					src, ins := p.Source, p.Instruction
					if src == "" {
						src = "-"
					}
					if ins == "" {
						ins = "-"
					}
					fmt.Fprintf(tw, "  %#06x\t%d\t%d\t%s\t%s\t%s\n", *p.Offset, p.Old, p.New, reason, src, ins)
				} else {
					fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", p.Source, p.Old, p.New, reason)
				}
			}
			tw.Flush()
		}
	}
}
