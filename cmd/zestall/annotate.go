package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdAnnotate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("annotate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	kernel := fs.String("kernel", "", "annotate only the kernel with this name (demangled or mangled); default: every sampled kernel")
	source := fs.Bool("source", false, "one row per source line (needs debug info; falls back to --asm without it)")
	asm := fs.Bool("asm", false, "one row per instruction, source lines interleaved when known (the default)")
	srcDir := fs.String("source-dir", "", "directory to look for source files in (by base name) before the path recorded in the debug info")
	noDisasm := fs.Bool("no-disasm", false, "do not disassemble (offsets only)")
	launch := fs.Uint64("launch", 0, "annotate one launch (its id, as report --launches shows): only the samples attributed to it alone")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall annotate [--kernel NAME | --launch ID] [--source | --asm] [--source-dir DIR] FILE...

Prints, per kernel like perf annotate, the EU stall samples of each
instruction (--asm, the default: every instruction of the kernel with IGA's
disassembly, source lines interleaved) or of each source line (--source,
from the DWARF line table of the module's debug info), with one column per
stall reason. Without debug info the listing has no source lines; without
the zestall-iga helper or Debian's libiga64.so.1 (package libigc1) it shows
instruction offsets only. Several FILEs are merged first.
--launch ID annotates the kernel of one launch with the samples attributed
to that launch alone (STALL_ATTRIBUTION_LAUNCH); the samples of reads it
shared with overlapping launches of the kernel are counted in the heading
but not listed (how they split between the launches is unknown). Launch ids
are those of the file (of the merged file when several FILEs are given).
Memory is bounded by kernels, instructions and devices, plus 2 to 4 bytes
per launch record (its append time, for the collection windows).
FILE "-" is standard input (as the only FILE). The same file may not be
given twice. A damaged file is read past each damaged stretch to the next
intact frame; what was lost is reported (exit status 1), as is a file with
no record.`)
		fs.PrintDefaults()
	}
	files, err := parseFiles(fs, args, "annotate takes at least one FILE", nil)
	if err != nil {
		return err
	}
	if *source && *asm {
		return usageError{"--source and --asm exclude each other"}
	}
	m := newRunModel()
	if *launch != 0 {
		m.onlyLaunch = *launch
		m.launchSel = &launchSelection{id: *launch, byID: map[uint64]*launchInfo{}}
	}
	if _, err := m.load(files, stderr); err != nil {
		return err
	}
	code := newCodeCache(m, stderr, !*noDisasm)
	defer code.close()
	a := &annotator{m: m, code: code, w: stdout, stderr: stderr, srcDir: *srcDir, files: map[string][]string{}}
	name := *kernel
	if *launch != 0 {
		if len(m.launchSel.all) == 0 {
			return errors.Join(m.readErr, fmt.Errorf("no launch with id %d in the file (report --launches lists them)", *launch))
		}
		l := m.launchSel.all[0]
		k := m.kernelByID[l.KernelId]
		if k == nil {
			return errors.Join(m.readErr, fmt.Errorf("launch %d names kernel %d, which is not in the file", l.Id, l.KernelId))
		}
		if name != "" && name != kernelName(k) && name != k.Name {
			return usageError{fmt.Sprintf("launch %d is a launch of %s, not of %s", l.Id, kernelName(k), name)}
		}
		name = kernelName(k)
		writeLaunchHeading(stdout, m, l, name)
	}
	if err := a.run(name, *source); err != nil {
		return err
	}
	return m.readErr
}

type annotator struct {
	m      *runModel
	code   *codeCache
	w      io.Writer
	stderr io.Writer
	srcDir string
	files  map[string][]string // source path -> lines (nil: unreadable)
}

// kernelSamples is the samples of every kernel record of one name, per
// instruction offset.
type kernelSamples struct {
	name   string
	kernel *pb.Kernel // the first record of the name: its code is used
	offs   map[uint64][]uint64
	sum    []uint64
	total  uint64
}

func (a *annotator) collect() []*kernelSamples {
	byName := map[string]*kernelSamples{}
	var ks []*kernelSamples
	for _, k := range a.m.kernels {
		n := kernelName(k)
		if byName[n] == nil {
			byName[n] = &kernelSamples{name: n, kernel: k, offs: map[uint64][]uint64{}, sum: make([]uint64, len(a.m.metrics))}
			ks = append(ks, byName[n])
		}
	}
	for _, r := range a.m.stallOrder {
		k := a.m.kernelByID[r.kernel]
		if k == nil {
			continue
		}
		s := byName[kernelName(k)]
		c := s.offs[r.off]
		if c == nil {
			c = make([]uint64, len(a.m.metrics))
			s.offs[r.off] = c
		}
		for j, v := range r.counts {
			if j < len(c) {
				c[j] += v
				s.sum[j] += v
				s.total += v
			}
		}
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].total > ks[j].total })
	return ks
}

func (a *annotator) run(kernel string, bySource bool) error {
	ks := a.collect()
	n := 0
	for _, s := range ks {
		if kernel != "" && s.name != kernel && s.kernel.Name != kernel {
			continue
		}
		if kernel == "" && s.total == 0 {
			continue
		}
		if n > 0 {
			fmt.Fprintln(a.w)
		}
		n++
		a.kernel(s, bySource)
	}
	if n == 0 {
		if kernel != "" {
			return fmt.Errorf("no kernel named %q in the file", kernel)
		}
		fmt.Fprintln(a.w, "no EU stall samples in the file (was sampling on? see zestall report)")
	}
	return nil
}

// columns returns the reasons with samples in this kernel (all of them
// when the kernel has none).
func (a *annotator) columns(s *kernelSamples) []int {
	var cols []int
	for j, v := range s.sum {
		if v > 0 || s.total == 0 {
			cols = append(cols, j)
		}
	}
	return cols
}

func (a *annotator) kernel(s *kernelSamples, bySource bool) {
	kc := a.code.get(s.kernel)
	k := s.kernel
	fmt.Fprintf(a.w, "kernel %s: %d EU stall samples; ISA %d bytes at %#x", s.name, s.total, k.IsaSize, k.BaseAddress)
	if kc.disasm {
		fmt.Fprintf(a.w, ", disassembled for %s", kc.platform)
	}
	fmt.Fprintln(a.w)
	// The SYCL call sites its launches were submitted from (XPTI), when
	// the run recorded them: the samples below are the kernel's, over all
	// of them.
	if names, all := a.m.sycl.callSites(k.Id, 3); all > 0 {
		fmt.Fprintf(a.w, "  SYCL call sites: %d; most launches: %s", all, strings.Join(names, "; "))
		if all > len(names) {
			fmt.Fprintf(a.w, "; ...")
		}
		fmt.Fprintln(a.w)
	}
	if kc.why != "" {
		fmt.Fprintf(a.w, "  (no disassembly: %s)\n", kc.why)
	}
	if kc.lines == nil {
		fmt.Fprintln(a.w, "  (no source lines: the module has no debug info)")
		bySource = false
	}
	cols := a.columns(s)
	if bySource {
		a.sourceView(s, kc, cols)
	} else {
		a.asmView(s, kc, cols)
	}
}

// header returns the column heads.
func (a *annotator) header(cols []int, last ...string) []string {
	h := []string{"SAMPLES", "%"}
	for _, j := range cols {
		h = append(h, a.m.metrics[j])
	}
	return append(h, last...)
}

// counts returns the count cells of one row: total, share, per reason.
func (a *annotator) counts(c []uint64, cols []int, total uint64) []string {
	var t uint64
	for _, v := range c {
		t += v
	}
	if t == 0 {
		cells := []string{".", ""}
		for range cols {
			cells = append(cells, "")
		}
		return cells
	}
	cells := []string{fmt.Sprint(t), fmt.Sprintf("%.1f", 100*float64(t)/float64(max(total, 1)))}
	for _, j := range cols {
		if c[j] == 0 {
			cells = append(cells, ".")
		} else {
			cells = append(cells, fmt.Sprint(c[j]))
		}
	}
	return cells
}

func (a *annotator) asmView(s *kernelSamples, kc *kernelCode, cols []int) {
	type row struct {
		off  uint64
		text string
	}
	var rows []row
	seen := map[uint64]bool{}
	for _, in := range kc.insts {
		rows = append(rows, row{uint64(in.off), in.text})
		seen[uint64(in.off)] = true
	}
	for off := range s.offs {
		if !seen[off] {
			text := "(not an instruction boundary)"
			if len(kc.insts) == 0 {
				text = ""
			}
			rows = append(rows, row{off, text})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].off < rows[j].off })
	var t table
	t.row(a.header(cols, "OFFSET", "INSTRUCTION")...)
	lastFile, lastLine := "", -1
	zero := make([]uint64, len(a.m.metrics))
	for _, r := range rows {
		if row, ok := kc.line(r.off); ok && (row.File != lastFile || row.Line != lastLine) {
			lastFile, lastLine = row.File, row.Line
			t.line(fmt.Sprintf("  %s:%d%s", filepath.Base(row.File), row.Line, a.sourceText(row.File, row.Line, " | ")))
		}
		c := s.offs[r.off]
		if c == nil {
			c = zero
		}
		t.row(append(a.counts(c, cols, s.total), fmt.Sprintf("%#06x", r.off), r.text)...)
	}
	t.write(a.w)
}

func (a *annotator) sourceView(s *kernelSamples, kc *kernelCode, cols []int) {
	type key struct {
		file string
		line int
	}
	agg := map[key][]uint64{}
	add := func(k key, c []uint64) {
		v := agg[k]
		if v == nil {
			v = make([]uint64, len(a.m.metrics))
			agg[k] = v
		}
		for j := range c {
			v[j] += c[j]
		}
	}
	// Every line the kernel's instructions come from, with or without
	// samples.
	for _, in := range kc.insts {
		if row, ok := kc.line(uint64(in.off)); ok {
			add(key{row.File, row.Line}, nil)
		}
	}
	for off, c := range s.offs {
		k := key{"", 0}
		if row, ok := kc.line(off); ok {
			k = key{row.File, row.Line}
		}
		add(k, c)
	}
	keys := make([]key, 0, len(agg))
	for k := range agg {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].file != keys[j].file {
			return keys[i].file < keys[j].file
		}
		return keys[i].line < keys[j].line
	})
	var t table
	t.row(a.header(cols, "LINE", "SOURCE")...)
	for _, k := range keys {
		cells := a.counts(agg[k], cols, s.total)
		if k.file == "" {
			t.row(append(cells, "-", "(no source line)")...)
			continue
		}
		t.row(append(cells, fmt.Sprintf("%s:%d", filepath.Base(k.file), k.line), a.sourceText(k.file, k.line, ""))...)
	}
	t.write(a.w)
}

// sourceText returns line n of the source file, prefixed by sep, or "" when
// the file cannot be read. It looks for the path recorded in the debug
// info, after its base name in --source-dir when that is given.
func (a *annotator) sourceText(path string, n int, sep string) string {
	lines, ok := a.files[path]
	if !ok {
		try := []string{path}
		if a.srcDir != "" {
			try = []string{filepath.Join(a.srcDir, filepath.Base(path)), path}
		}
		for _, p := range try {
			if l, err := readLines(p); err == nil {
				lines = l
				break
			}
		}
		a.files[path] = lines
		if lines == nil {
			fmt.Fprintf(a.stderr, "zestall: source %s not found (use --source-dir)\n", path)
		}
	}
	if n < 1 || n > len(lines) {
		return ""
	}
	return sep + strings.TrimRight(strings.ReplaceAll(lines[n-1], "\t", "    "), " ")
}

// readLines reads a source file; files over 16 MiB are not sources.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > 16<<20 {
		return nil, fmt.Errorf("%s: not a source file", path)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// writeLaunchHeading says which launch annotate --launch shows, and what of
// its samples the listing leaves out.
func writeLaunchHeading(w io.Writer, m *runModel, l *launchInfo, name string) {
	var t0 uint64
	if m.header != nil {
		t0 = m.header.StartHostNs
	}
	fmt.Fprintf(w, "launch %d of %s on device %d", l.Id, name, l.DeviceId)
	if l.timed() {
		fmt.Fprintf(w, ": started %.3f ms, device time %.2f us", float64(l.DeviceStartNs-min(l.DeviceStartNs, t0))/1e6, float64(l.durationNs())/1e3)
	} else {
		fmt.Fprint(w, ": no device times")
	}
	fmt.Fprintf(w, ", groups %dx%dx%d of %dx%dx%d\n", l.GroupCountX, l.GroupCountY, l.GroupCountZ, l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ)
	fmt.Fprintf(w, "EU stall samples attributed to this launch alone: %d (listed below); in reads shared with overlapping launches of the kernel: %d (not listed)\n\n",
		sumCounts(l.own), sumCounts(l.shared))
}
