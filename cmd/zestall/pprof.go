package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/zestall/zestall/format/dwarfline"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

func cmdPprof(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("pprof", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file (required): a gzipped pprof profile, e.g. stalls.pb.gz")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall pprof FILE... -o OUT.pb.gz

Writes the EU stall samples of FILE as a pprof profile: one sample type
per stall reason (in the driver's metric order) after "samples" (all
reasons, the default); one location per (kernel, instruction offset) at
its GPU address, with the DWARF source line when the module had debug
info; one sample per (instruction, device, attribution) with labels
"device", "attribution" (launch: each row named one launch; shared: rows
shared by overlapping launches; kernel: no launch named), "launches" (the
first 8 launch ids the rows name, "… (more)" when there are others) and
the number "rows" summed. Memory is bounded by kernels and instructions,
not by launches (plus 2 to 4 bytes per launch record for the windows).
View it with: go tool pprof -http=: OUT.pb.gz (flame graph, top, source;
add -source_path=DIR when the sources moved). Several FILEs are merged
first. FILE "-" is standard input (as the only FILE). The same file may not be
given twice. A damaged file is read past each damaged stretch to the next
intact frame; what was lost is reported (exit status 1), as is a file with
no record.
OUT is written to a temporary file next to it and appears only complete;
it must not exist and is never overwritten.`)
		fs.PrintDefaults()
	}
	m, err := loadForOutput(fs, args, out, "pprof", stderr)
	if err != nil {
		return err
	}
	p, err := buildProfile(m)
	if err != nil {
		return errors.Join(m.readErr, err)
	}
	if err := writeOutput(*out, p.Write); err != nil {
		return errors.Join(m.readErr, err)
	}
	fmt.Fprintf(stderr, "zestall: wrote %s (%d samples, %d locations)\n", *out, len(p.Sample), len(p.Location))
	return m.readErr
}

// buildProfile turns the run's stall rows into a pprof profile.
func buildProfile(m *runModel) (*profile.Profile, error) {
	if len(m.stallOrder) == 0 {
		return nil, fmt.Errorf("the file holds no EU stall samples (was sampling on? see zestall report)")
	}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}},
		DefaultSampleType: "samples",
		PeriodType:        &profile.ValueType{Type: "eu-stall-sampling", Unit: "nanoseconds"},
		Period:            int64(m.periodNs),
		Comments:          []string{"zestall EU stall samples"},
	}
	for _, name := range m.metrics {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: name, Unit: "count"})
	}
	if h := m.header; h != nil {
		p.TimeNanos = h.StartUnixNs
		p.Comments = append(p.Comments, "command: "+strings.Join(h.Argv, " "))
	}
	kernels := map[uint64]*pb.Kernel{}
	for _, k := range m.kernels {
		kernels[k.Id] = k
	}
	lines := map[uint64]*dwarfline.Table{} // module content id -> line table
	lineTable := func(k *pb.Kernel) *dwarfline.Table {
		mod := m.modules[k.ModuleId]
		if mod == nil {
			return nil
		}
		if mod.ContentModuleId != 0 {
			mod = m.modules[mod.ContentModuleId]
		}
		if mod == nil || len(mod.DebugInfo) == 0 {
			return nil
		}
		if t, ok := lines[mod.Id]; ok {
			return t
		}
		t, err := dwarfline.Open(mod.DebugInfo)
		if err != nil {
			t = nil
		}
		lines[mod.Id] = t
		return t
	}
	funcs := map[string]*profile.Function{}
	locs := map[[2]uint64]*profile.Location{}
	mapping := &profile.Mapping{ID: 1, File: "[gpu]", HasFunctions: true, HasLineNumbers: true}
	p.Mapping = []*profile.Mapping{mapping}
	// The SYCL call site (queue.submit) above a kernel's instructions,
	// when its launches came from one (cmd/zestall/sycl.go).
	hostLocs := map[string]*profile.Location{}
	var hostMapping *profile.Mapping
	hostLoc := func(kernel uint64) *profile.Location {
		name, file, line, ok := m.sycl.hostFrame(kernel)
		if !ok {
			return nil
		}
		if l := hostLocs[name]; l != nil {
			return l
		}
		if hostMapping == nil {
			hostMapping = &profile.Mapping{ID: 2, File: "[sycl]", HasFunctions: true, HasLineNumbers: true}
			p.Mapping = append(p.Mapping, hostMapping)
		}
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		p.Function = append(p.Function, fn)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: hostMapping,
			Line: []profile.Line{{Function: fn, Line: line}}}
		p.Location = append(p.Location, l)
		hostLocs[name] = l
		return l
	}
	for _, r := range m.stallOrder {
		k := kernels[r.kernel]
		if k == nil {
			continue
		}
		key := [2]uint64{k.BaseAddress, r.off}
		loc := locs[key]
		if loc == nil {
			name := kernelName(k)
			fn := funcs[name]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: k.Name}
				funcs[name] = fn
				p.Function = append(p.Function, fn)
			}
			line := profile.Line{Function: fn}
			if t := lineTable(k); t != nil {
				if row, ok := t.LookupKernel(k.Name, r.off); ok && row.Line > 0 {
					line.Line = int64(row.Line)
					if fn.Filename == "" {
						fn.Filename = row.File
					}
				}
			}
			loc = &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: mapping, Address: k.BaseAddress + r.off, Line: []profile.Line{line}}
			locs[key] = loc
			p.Location = append(p.Location, loc)
		}
		vals := make([]int64, 1+len(m.metrics))
		for j, c := range r.counts {
			if j+1 < len(vals) {
				vals[j+1] = int64(c)
				vals[0] += int64(c)
			}
		}
		stack := []*profile.Location{loc}
		if host := hostLoc(k.Id); host != nil {
			stack = append(stack, host)
		}
		s := &profile.Sample{Location: stack, Value: vals,
			Label:    map[string][]string{"device": {fmt.Sprint(r.device)}, "attribution": {attributionLabel(r.kind)}},
			NumLabel: map[string][]int64{"rows": {int64(r.rows)}}}
		if len(r.ids.ids) > 0 {
			s.Label["launches"] = []string{r.ids.String()}
		}
		p.Sample = append(p.Sample, s)
	}
	sort.SliceStable(p.Sample, func(i, j int) bool { return p.Sample[i].Value[0] > p.Sample[j].Value[0] })
	return p, p.CheckValid()
}

// attributionLabel names an attribution kind in pprof labels.
func attributionLabel(k pb.StallAttribution) string {
	switch k {
	case pb.StallAttribution_STALL_ATTRIBUTION_LAUNCH:
		return "launch"
	case pb.StallAttribution_STALL_ATTRIBUTION_SHARED, pb.StallAttribution_STALL_ATTRIBUTION_SHARED_RANGES:
		return "shared"
	}
	return "kernel"
}

// parseFiles parses a command's flags and FILE arguments (flags may
// follow them); need says what is missing when there is no FILE or when
// ok reports the flags incomplete. Errors are errHelp or usage errors.
func parseFiles(fs *flag.FlagSet, args []string, need string, ok func() bool) ([]string, error) {
	files, err := parseInterspersed(fs, args)
	if err != nil {
		if err == flag.ErrHelp {
			return nil, errHelp
		}
		return nil, usageError{err.Error()}
	}
	if len(files) == 0 || (ok != nil && !ok()) {
		fs.Usage()
		return nil, usageError{need}
	}
	if err := checkInputs(files, true); err != nil {
		return nil, err
	}
	return files, nil
}

// parseInterspersed parses flags that may follow positional arguments
// ("FILE -o OUT" as well as "-o OUT FILE"); it returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil // "--" ends the flags
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// loadForOutput parses "FILE -o OUT" for the commands that write a file,
// and loads FILE.
func loadForOutput(fs *flag.FlagSet, args []string, out *string, cmd string, stderr io.Writer) (*runModel, error) {
	return loadForOutputWith(fs, args, out, cmd, stderr, false)
}

// loadForOutputWith is loadForOutput; keepLaunches as for loadRunsWith.
// checks, when given, validate the flags before anything is read.
func loadForOutputWith(fs *flag.FlagSet, args []string, out *string, cmd string, stderr io.Writer, keepLaunches bool, checks ...func() error) (*runModel, error) {
	files, err := parseFiles(fs, args, cmd+" takes FILE... and -o OUT", func() bool { return *out != "" })
	if err != nil {
		return nil, err
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return nil, err
		}
	}
	if err := checkOutput(*out); err != nil {
		return nil, err
	}
	return loadRunsWith(files, stderr, keepLaunches)
}
