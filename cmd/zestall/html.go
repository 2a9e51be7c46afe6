package main

import (
	"bytes"
	"flag"
	"fmt"
	"html"
	"html/template"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func cmdHTML(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("html", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output file (required): one self-contained HTML page")
	kernels := fs.Int("kernels", 10, "kernels (most stall samples first) given a per-instruction and per-line view")
	launches := fs.Int("launches", 50, "launches in the per-launch table (the longest)")
	srcDir := fs.String("source-dir", "", "directory to look for source files in (by base name) before the path recorded in the debug info")
	noDisasm := fs.Bool("no-disasm", false, "do not disassemble (offsets and source lines only)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: zestall html FILE... -o PAGE.html [--kernels N] [--launches N] [--source-dir DIR]

Writes one self-contained HTML page (no script, style or font fetched from
anywhere: open it from disk, mail it, attach it to an issue): the run and
its devices, the per-run table and imbalance for several runs, a timeline
of device busy time per device (coloured by the kernel with the most time
in each slice), kernels by device time and by EU stall samples with
per-reason bars, for the --kernels most sampled kernels the source lines
and the instructions (IGA's text, file:line) with per-reason columns
shaded by their share, the --launches longest launches with their stall
samples, and the text report. Several FILEs are merged first.
Memory is that of report, plus the timeline (at most 64 device lanes of
400 slices) and the --launches launches kept. FILE "-" is standard input
(as the only FILE). A damaged file is read past each damaged stretch;
what was lost is on the page and reported (exit status 1).
OUT is written to a temporary file next to it and appears only complete;
it must not exist and is never overwritten.`)
		fs.PrintDefaults()
	}
	if *kernels < 0 || *launches < 0 {
		return usageError{"--kernels and --launches must not be negative"}
	}
	files, err := parseFiles(fs, args, "html takes FILE... and -o OUT", func() bool { return *out != "" })
	if err != nil {
		return err
	}
	if err := checkOutput(*out); err != nil {
		return err
	}
	m := newRunModel()
	m.launchSel = newLaunchSelection("", max(*launches, 1))
	m.timelineOn = true
	if _, err := m.load(files, stderr); err != nil {
		return err
	}
	code := newCodeCache(m, stderr, !*noDisasm)
	defer code.close()
	p := buildPage(m, code, stderr, *srcDir, *kernels, *launches)
	if err := writeOutput(*out, func(w io.Writer) error { return pageTemplate.Execute(w, p) }); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "zestall: wrote %s\n", *out)
	return m.readErr
}

// page is what the template shows.
type page struct {
	Title       string
	Summary     []string
	Devices     []pageDevice
	Damage      []string
	Reasons     []pageReason
	Imbalance   string
	Ranks       []jsonRank
	RanksMore   int
	Timeline    template.HTML
	Kernels     []pageKernel
	KernelViews []pageKernelView
	Launches    []pageLaunch
	LaunchNote  string
	TextReport  string
}

type pageDevice struct{ Name, Sampling, Use string }

type pageReason struct {
	Name  string
	Color template.CSS
}

type pageKernel struct {
	Name, Anchor                       string
	Launches                           int
	DeviceMs, Share, Mean, Median, P99 string
	Max                                string
	Samples                            uint64
	Bar                                template.HTML
	HasView                            bool
}

type pageCell struct {
	Text  string
	Style template.CSS
}

type pageRow struct {
	Loc, Text, Off string
	Total          string
	Cells          []pageCell
	Hot            bool
}

type pageKernelView struct {
	Name, Anchor, Heading string
	Note                  string
	Columns               []pageReason
	Lines                 []pageRow
	Insts                 []pageRow
}

type pageLaunch struct {
	ID, Kernel, Device, Start, Time, VsMedian, Shape string
	Samples, Shared                                  uint64
	Top                                              string
}

// reasonColors: one colour per stall reason column, in driver order.
var reasonColors = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}

func reasonColor(j int) string { return reasonColors[j%len(reasonColors)] }

// kernelColors: the timeline's colours, by kernel rank.
var kernelColors = []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7", "#bab0ac"}

func anchorFor(i int) string { return fmt.Sprintf("k%d", i) }

func buildPage(m *runModel, code *codeCache, stderr io.Writer, srcDir string, nKernels, nLaunches int) *page {
	p := &page{Title: "zestall"}
	if h := m.header; h != nil {
		started := time.Unix(0, h.StartUnixNs).UTC().Format(time.RFC3339)
		if len(m.sources) > 0 {
			p.Title = fmt.Sprintf("zestall: %d runs merged", m.runCount())
			p.Summary = append(p.Summary, fmt.Sprintf("%d runs merged, earliest started %s", m.runCount(), started))
		} else {
			p.Title = fmt.Sprintf("zestall: %s (pid %d on %s)", strings.Join(h.Argv, " "), h.Pid, h.HostName)
			p.Summary = append(p.Summary, fmt.Sprintf("%s, pid %d on %s, started %s", h.ToolVersion, h.Pid, h.HostName, started),
				"command: "+strings.Join(h.Argv, " "))
		}
		use := m.deviceUse()
		for i, d := range h.Devices {
			if i == 32 {
				p.Devices = append(p.Devices, pageDevice{Name: fmt.Sprintf("… %d more devices", len(h.Devices)-i)})
				break
			}
			var sb strings.Builder
			writeSampling(&sb, d)
			var ub strings.Builder
			writeDeviceUse(&ub, d, use, m.damaged())
			p.Devices = append(p.Devices, pageDevice{Name: fmt.Sprintf("device %d: %s (%s, %d Xe-cores)", d.Id, d.Name, d.Platform, d.XeCoreCount),
				Sampling: strings.TrimSpace(sb.String()), Use: strings.TrimSpace(ub.String())})
		}
	}
	if c := m.counters; c != nil {
		p.Summary = append(p.Summary, fmt.Sprintf("kernel launches seen: %d, with device times: %d", c.LaunchesSeen, c.LaunchesTimed))
		for _, l := range c.Lost {
			p.Damage = append(p.Damage, fmt.Sprintf("LOST: %d %s", l.Count, l.What))
		}
		if !c.Final {
			p.Damage = append(p.Damage, "the run ended abnormally: counters are from the last flush")
		}
	}
	var dmg bytes.Buffer
	writeDamage(&dmg, m)
	for _, l := range strings.Split(strings.TrimSpace(dmg.String()), "\n") {
		if l != "" {
			p.Damage = append(p.Damage, l)
		}
	}
	for j, n := range m.metrics {
		p.Reasons = append(p.Reasons, pageReason{n, template.CSS("background:" + reasonColor(j))})
	}
	if rows := m.rankRows(); rows != nil {
		rs, im := jsonRanks(m, rows)
		p.Imbalance = fmt.Sprintf("device time per run: min %.3f ms (%s), median %.3f ms, max %.3f ms (%s); max/mean %.2f",
			float64(im.MinNs)/1e6, im.Fastest, float64(im.MedianNs)/1e6, float64(im.MaxNs)/1e6, im.Slowest, im.MaxOverMean)
		if len(rs) > 200 {
			p.RanksMore = len(rs) - 200
			rs = rs[:200]
		}
		p.Ranks = rs
	}

	// Kernels: by device time, with their stall samples.
	a := &annotator{m: m, code: code, w: io.Discard, stderr: stderr, srcDir: srcDir, files: map[string][]string{}}
	ks := a.collect()
	anchor := map[string]string{}
	viewed := 0
	for i, s := range ks {
		if s.total > 0 && viewed < nKernels {
			anchor[s.name] = anchorFor(i)
			viewed++
		}
	}
	type timeRow struct {
		launches int
		ns       uint64
		dur      *sketch
	}
	times := map[string]*timeRow{}
	for _, k := range m.kernels {
		n := kernelName(k)
		r := times[n]
		if r == nil {
			r = &timeRow{dur: newSketch()}
			times[n] = r
		}
		r.launches += m.timed[k.Id]
		r.ns += m.devNs[k.Id]
		r.dur.merge(m.durations[k.Id])
	}
	var totalNs uint64
	for _, r := range times {
		totalNs += r.ns
	}
	for _, s := range ks {
		r := times[s.name]
		pk := pageKernel{Name: s.name, Anchor: anchor[s.name], HasView: anchor[s.name] != "", Samples: s.total, Bar: reasonBar(s.sum, s.total, m)}
		if r != nil && r.launches > 0 {
			pk.Launches = r.launches
			pk.DeviceMs = fmt.Sprintf("%.3f ms", float64(r.ns)/1e6)
			pk.Share = fmt.Sprintf("%.1f%%", 100*float64(r.ns)/float64(max(totalNs, 1)))
			pk.Mean = fmt.Sprintf("%.2f us", float64(r.ns)/float64(r.launches)/1e3)
			pk.Median = fmt.Sprintf("%.2f us", r.dur.quantile(0.5)/1e3)
			pk.P99 = fmt.Sprintf("%.2f us", r.dur.quantile(0.99)/1e3)
			pk.Max = fmt.Sprintf("%.2f us", float64(r.dur.max)/1e3)
		}
		p.Kernels = append(p.Kernels, pk)
	}
	sort.SliceStable(p.Kernels, func(i, j int) bool {
		ri, rj := times[p.Kernels[i].Name], times[p.Kernels[j].Name]
		var a, b uint64
		if ri != nil {
			a = ri.ns
		}
		if rj != nil {
			b = rj.ns
		}
		return a > b
	})
	for _, s := range ks {
		if anchor[s.name] != "" {
			p.KernelViews = append(p.KernelViews, kernelView(a, s, anchor[s.name]))
		}
	}

	// Launches, longest first.
	if nLaunches > 0 {
		var lb bytes.Buffer
		writeLaunchTable(&lb, m)
		p.LaunchNote = strings.SplitN(lb.String(), "\n", 2)[0]
		medians := launchMedians(m)
		var t0 uint64
		if m.header != nil {
			t0 = m.header.StartHostNs
		}
		for _, l := range m.launchSel.launches() {
			pl := pageLaunch{ID: fmt.Sprint(l.Id), Device: fmt.Sprint(l.DeviceId), Start: "-", Time: "untimed", VsMedian: "-",
				Shape:   fmt.Sprintf("%dx%dx%d of %dx%dx%d", l.GroupCountX, l.GroupCountY, l.GroupCountZ, l.GroupSizeX, l.GroupSizeY, l.GroupSizeZ),
				Samples: sumCounts(l.own), Shared: sumCounts(l.shared), Top: topReasons(m, l.own, 3)}
			if k := m.kernelByID[l.KernelId]; k != nil {
				pl.Kernel = kernelName(k)
			}
			if l.timed() {
				pl.Start = fmt.Sprintf("%.3f ms", float64(l.DeviceStartNs-min(l.DeviceStartNs, t0))/1e6)
				pl.Time = fmt.Sprintf("%.2f us", float64(l.durationNs())/1e3)
				if med := medians[pl.Kernel]; med > 0 {
					pl.VsMedian = fmt.Sprintf("%.2fx", float64(l.durationNs())/med)
				}
			}
			p.Launches = append(p.Launches, pl)
		}
	}
	p.Timeline = timelineSVG(m, ks)
	var tr bytes.Buffer
	writeReport(&tr, m, code, 5, 16)
	p.TextReport = tr.String()
	return p
}

// reasonBar is a horizontal bar of the reasons' shares.
func reasonBar(c []uint64, total uint64, m *runModel) template.HTML {
	if total == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(`<span class="bar">`)
	for j, v := range c {
		if v == 0 {
			continue
		}
		pct := 100 * float64(v) / float64(total)
		fmt.Fprintf(&b, `<span style="width:%.2f%%;background:%s" title="%s %d (%.1f%%)"></span>`, pct, reasonColor(j), html.EscapeString(m.metricName(j)), v, pct)
	}
	b.WriteString(`</span>`)
	return template.HTML(b.String())
}

// heat shades a cell by its share of the column's largest value.
func heat(v, colMax uint64, color string) template.CSS {
	if v == 0 || colMax == 0 {
		return ""
	}
	alpha := 0.12 + 0.6*float64(v)/float64(colMax)
	return template.CSS(fmt.Sprintf("background:%s%02x", color, int(alpha*255)))
}

func kernelView(a *annotator, s *kernelSamples, anchor string) pageKernelView {
	kc := a.code.get(s.kernel)
	v := pageKernelView{Name: s.name, Anchor: anchor,
		Heading: fmt.Sprintf("%d EU stall samples; ISA %d bytes", s.total, s.kernel.IsaSize)}
	if kc.disasm {
		v.Heading += fmt.Sprintf(", disassembled for %s", kc.platform)
	}
	var notes []string
	if kc.why != "" {
		notes = append(notes, "no disassembly: "+kc.why)
	}
	if kc.lines == nil {
		notes = append(notes, "no source lines: the module has no debug info")
	}
	v.Note = strings.Join(notes, "; ")
	cols := a.columns(s)
	for _, j := range cols {
		v.Columns = append(v.Columns, pageReason{a.m.metricName(j), template.CSS("background:" + reasonColor(j))})
	}
	row := func(c []uint64, colMax []uint64, total uint64) (string, []pageCell) {
		cells := make([]pageCell, len(cols))
		t := sumCounts(c)
		for i, j := range cols {
			if j < len(c) && c[j] > 0 {
				cells[i] = pageCell{fmt.Sprint(c[j]), heat(c[j], colMax[i], reasonColor(j))}
			}
		}
		if t == 0 {
			return "", cells
		}
		return fmt.Sprintf("%d (%.1f%%)", t, 100*float64(t)/float64(max(total, 1))), cells
	}
	colMaxOf := func(rows [][]uint64) []uint64 {
		mx := make([]uint64, len(cols))
		for _, c := range rows {
			for i, j := range cols {
				if j < len(c) {
					mx[i] = max(mx[i], c[j])
				}
			}
		}
		return mx
	}
	// Per source line.
	if kc.lines != nil {
		type key struct {
			file string
			line int
		}
		agg := map[key][]uint64{}
		for _, in := range kc.insts {
			if r, ok := kc.line(uint64(in.off)); ok {
				if agg[key{r.File, r.Line}] == nil {
					agg[key{r.File, r.Line}] = make([]uint64, len(a.m.metrics))
				}
			}
		}
		for off, c := range s.offs {
			k := key{}
			if r, ok := kc.line(off); ok {
				k = key{r.File, r.Line}
			}
			if agg[k] == nil {
				agg[k] = make([]uint64, len(a.m.metrics))
			}
			for j := range c {
				agg[k][j] += c[j]
			}
		}
		keys := make([]key, 0, len(agg))
		var all [][]uint64
		for k, c := range agg {
			keys = append(keys, k)
			all = append(all, c)
		}
		sort.Slice(keys, func(i, j int) bool {
			if keys[i].file != keys[j].file {
				return keys[i].file < keys[j].file
			}
			return keys[i].line < keys[j].line
		})
		mx := colMaxOf(all)
		var hot uint64
		for _, c := range all {
			hot = max(hot, sumCounts(c))
		}
		for _, k := range keys {
			total, cells := row(agg[k], mx, s.total)
			r := pageRow{Loc: "(no source line)", Total: total, Cells: cells, Hot: hot > 0 && sumCounts(agg[k]) == hot}
			if k.file != "" {
				r.Loc = fmt.Sprintf("%s:%d", filepath.Base(k.file), k.line)
				r.Text = strings.TrimPrefix(a.sourceText(k.file, k.line, "|"), "|")
			}
			v.Lines = append(v.Lines, r)
		}
	}
	// Per instruction.
	offs := map[uint64]string{}
	for _, in := range kc.insts {
		offs[uint64(in.off)] = in.text
	}
	for off := range s.offs {
		if _, ok := offs[off]; !ok {
			offs[off] = "(not an instruction boundary)"
			if len(kc.insts) == 0 {
				offs[off] = ""
			}
		}
	}
	order := make([]uint64, 0, len(offs))
	var all [][]uint64
	var hot uint64
	for off := range offs {
		order = append(order, off)
		if c := s.offs[off]; c != nil {
			all = append(all, c)
			hot = max(hot, sumCounts(c))
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	mx := colMaxOf(all)
	for _, off := range order {
		c := s.offs[off]
		total, cells := row(c, mx, s.total)
		r := pageRow{Off: fmt.Sprintf("%#06x", off), Text: offs[off], Total: total, Cells: cells, Hot: hot > 0 && sumCounts(c) == hot}
		if lr, ok := kc.line(off); ok {
			r.Loc = fmt.Sprintf("%s:%d", filepath.Base(lr.File), lr.Line)
		}
		v.Insts = append(v.Insts, r)
	}
	return v
}

// timelineSVG draws each lane's busy share per slice, coloured by the
// slice's kernel with the most time.
func timelineSVG(m *runModel, ks []*kernelSamples) template.HTML {
	tl := m.timeline
	if tl == nil || len(tl.order) == 0 {
		return template.HTML(`<p>No launch with device times: no timeline.</p>`)
	}
	// Kernel colours by total time on the timeline.
	total := make([]uint64, len(tl.listed))
	for _, ln := range tl.lanes {
		if ln == nil {
			continue
		}
		for _, b := range ln.bins {
			for k, v := range b {
				total[k] += v
			}
		}
	}
	rank := make([]int, len(total))
	for i := range rank {
		rank[i] = i
	}
	sort.SliceStable(rank, func(a, b int) bool { return total[rank[a]] > total[rank[b]] })
	color := make([]string, len(total))
	for r, k := range rank {
		color[k] = "#999999"
		if r < len(kernelColors)-1 {
			color[k] = kernelColors[r]
		}
	}
	const laneH, labelW, plotW = 28, 190, 800
	used := int((tl.endNs + tl.width - 1) / tl.width)
	used = max(1, min(used, timelineBins))
	binW := float64(plotW) / float64(used)
	var b strings.Builder
	h := laneH*len(tl.order) + 30
	fmt.Fprintf(&b, `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img">`, labelW+plotW+10, h)
	sources := map[uint32]string{}
	for _, s := range m.sources {
		if s.Header != nil && s.Header.MpiRank != nil {
			sources[s.Index] = fmt.Sprintf("rank %d ", *s.Header.MpiRank)
		} else {
			sources[s.Index] = fmt.Sprintf("input %d ", s.Index)
		}
	}
	for i, lane := range tl.order {
		ln := tl.lanes[lane]
		y := i * laneH
		fmt.Fprintf(&b, `<text x="0" y="%d" class="lane">%sdevice %d</text>`, y+18, html.EscapeString(sources[lane.source]), lane.device)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" class="lanebg"/>`, labelW, y+2, plotW, laneH-4)
		for bi := 0; bi < used; bi++ {
			bin := ln.bins[bi]
			if len(bin) == 0 {
				continue
			}
			var busy, best uint64
			var bk int32
			for k, v := range bin {
				busy += v
				if v > best || v == best && k < bk {
					best, bk = v, k
				}
			}
			frac := min(1.0, float64(busy)/float64(tl.width)) // overlapping launches can exceed the slice
			bh := max(1, frac*float64(laneH-4))
			fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s"><title>%.3f–%.3f ms: busy %.0f%%, mostly %s</title></rect>`,
				float64(labelW)+float64(bi)*binW, float64(y+laneH-2)-bh, max(binW, 0.5), bh, color[bk],
				float64(uint64(bi)*tl.width)/1e6, float64(uint64(bi+1)*tl.width)/1e6, 100*frac, html.EscapeString(tl.listed[bk]))
		}
	}
	y := laneH*len(tl.order) + 16
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="axis">0 ms</text><text x="%d" y="%d" class="axis" text-anchor="end">%.3f ms from the run's start (slices of %.1f us)</text>`,
		labelW, y, labelW+plotW, y, float64(uint64(used)*tl.width)/1e6, float64(tl.width)/1e3)
	b.WriteString(`</svg><p class="legend">`)
	for r, k := range rank {
		if r == len(kernelColors)-1 {
			b.WriteString(`<span><i style="background:#999999"></i>other kernels</span>`)
			break
		}
		fmt.Fprintf(&b, `<span><i style="background:%s"></i>%s</span>`, color[k], html.EscapeString(tl.listed[k]))
	}
	b.WriteString(`</p>`)
	if tl.extra > 0 {
		fmt.Fprintf(&b, `<p>%d more device lanes are not drawn (the first %d are).</p>`, tl.extra, maxTimelineLanes)
	}
	if len(m.sources) > 1 {
		b.WriteString(`<p>Runs are drawn on their own host clocks from the merged run's start (times of different hosts are not aligned).</p>`)
	}
	return template.HTML(b.String())
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ms": func(ns uint64) float64 { return float64(ns) / 1e6 },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="zestall html">
<title>{{.Title}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:1px 6px;text-align:right;white-space:nowrap}
th{background:#eee;position:sticky;top:0}td.l,th.l{text-align:left}
tr.hot td{font-weight:bold;outline:1px solid #c00}
code,pre,td.code{font-family:ui-monospace,monospace;font-size:12px}td.code{white-space:pre}
.bar{display:inline-flex;width:240px;height:12px;background:#eee;vertical-align:middle}.bar span{display:block;height:12px}
.legend span{margin-right:1em;white-space:nowrap}.legend i{display:inline-block;width:10px;height:10px;margin-right:3px}
.lanebg{fill:#f4f4f4}.lane,.axis{font:11px sans-serif}.damage{color:#b00;font-weight:bold}
.side{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Summary}}<div>{{.}}</div>{{end}}
{{range .Damage}}<div class="damage">{{.}}</div>{{end}}
<ul id="devices">{{range .Devices}}<li>{{.Name}}{{if .Sampling}}<br>{{.Sampling}}{{end}}{{if .Use}}<br>{{.Use}}{{end}}</li>{{end}}</ul>
{{if .Ranks}}<h2 id="ranks">Runs</h2><p>{{.Imbalance}}</p>
<table><tr><th class="l">run</th><th class="l">host</th><th>launches</th><th>device time</th><th>stall samples</th><th class="l">top kernel (time)</th><th class="l">most stalled kernel: top reason</th></tr>
{{range .Ranks}}<tr><td class="l">{{if .Rank}}rank {{.Rank}}{{else}}input {{.Input}}{{end}}</td><td class="l">{{.Host}}</td><td>{{.Launches}}</td><td>{{printf "%.3f ms" (ms .DeviceNs)}}</td><td>{{.StallSamples}}</td><td class="l">{{.TopKernel}}</td><td class="l">{{.MostStalled}} {{.MostStalledR}}</td></tr>
{{end}}</table>{{if .RanksMore}}<p>{{.RanksMore}} more runs in zestall report --json.</p>{{end}}{{end}}
<h2 id="timeline">Timeline: device busy time</h2>
{{.Timeline}}
<h2 id="kernels">Kernels</h2>
<p class="legend">{{range .Reasons}}<span><i style="{{.Color}}"></i>{{.Name}}</span>{{end}}</p>
<table><tr><th class="l">kernel</th><th>device time</th><th>share</th><th>launches</th><th>mean</th><th>median</th><th>p99</th><th>max</th><th>stall samples</th><th class="l">stall reasons</th></tr>
{{range .Kernels}}<tr><td class="l">{{if .HasView}}<a href="#{{.Anchor}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}</td><td>{{.DeviceMs}}</td><td>{{.Share}}</td><td>{{.Launches}}</td><td>{{.Mean}}</td><td>{{.Median}}</td><td>{{.P99}}</td><td>{{.Max}}</td><td>{{.Samples}}</td><td class="l">{{.Bar}}</td></tr>
{{end}}</table>
<p>Launches, mean, median (within 1%), p99 and max are over the launches with device times.</p>
{{range .KernelViews}}<section class="kernel" id="{{.Anchor}}"><h2>{{.Name}}</h2><p>{{.Heading}}{{if .Note}} ({{.Note}}){{end}}</p>
<div class="side">
{{if .Lines}}<table class="lines"><tr><th class="l">line</th><th>samples</th>{{range .Columns}}<th>{{.Name}}</th>{{end}}<th class="l">source</th></tr>
{{range .Lines}}<tr{{if .Hot}} class="hot"{{end}}><td class="l">{{.Loc}}</td><td>{{.Total}}</td>{{range .Cells}}<td style="{{.Style}}">{{.Text}}</td>{{end}}<td class="l code">{{.Text}}</td></tr>
{{end}}</table>{{end}}
<table class="insts"><tr><th class="l">offset</th><th>samples</th>{{range .Columns}}<th>{{.Name}}</th>{{end}}<th class="l">line</th><th class="l">instruction</th></tr>
{{range .Insts}}<tr{{if .Hot}} class="hot"{{end}}><td class="l code">{{.Off}}</td><td>{{.Total}}</td>{{range .Cells}}<td style="{{.Style}}">{{.Text}}</td>{{end}}<td class="l">{{.Loc}}</td><td class="l code">{{.Text}}</td></tr>
{{end}}</table>
</div></section>
{{end}}
<h2 id="launches">Launches</h2>
<p>{{.LaunchNote}}. Samples: EU stall samples attributed to the launch alone; shared: samples of reads that overlapped several launches of the kernel, counted for each of them.</p>
<table><tr><th>launch</th><th class="l">kernel</th><th>device</th><th>start</th><th>device time</th><th>vs median</th><th class="l">groups of size</th><th>samples</th><th>shared</th><th class="l">top reasons</th></tr>
{{range .Launches}}<tr><td>{{.ID}}</td><td class="l">{{.Kernel}}</td><td>{{.Device}}</td><td>{{.Start}}</td><td>{{.Time}}</td><td>{{.VsMedian}}</td><td class="l">{{.Shape}}</td><td>{{.Samples}}</td><td>{{.Shared}}</td><td class="l">{{.Top}}</td></tr>
{{end}}</table>
<h2 id="text">Text report</h2>
<details><summary>zestall report</summary><pre>{{.TextReport}}</pre></details>
</body></html>
`))
