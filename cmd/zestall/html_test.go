package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/zestall/zestall/test/buildtree"
)

// chromium returns Debian's chromium, or skips with the reason.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found, but CI runs scripts/setup.sh, which installs it")
	}
	t.Skip("chromium not installed (scripts/setup.sh installs Debian's package chromium)")
	return ""
}

// runChromium runs headless Chromium on the page with the given mode
// flags and returns its standard output.
func runChromium(t *testing.T, browser, page string, mode ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a loaded 2-vCPU machine: ~20 s seen
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars", "--window-size=1400,1800"}, mode...)
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+page)...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", browser, mode, err, se.String())
	}
	return so.Bytes()
}

// TestHTMLInChromium: the web page of a real capture, rendered by a real
// browser: the DOM Chromium builds holds the kernels, their timeline, the
// hottest source line and instruction (with IGA's text when IGA is
// there), the per-reason columns and the launch table; the page loads
// nothing from anywhere. A screenshot is kept in $ZESTALL_ARTEFACTS (or
// the test's temporary directory).
func TestHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	withIGA := true
	helper := buildtreeHelperOrSkip(t)
	if helper == "" {
		withIGA = false
		helper = "/nonexistent/zestall-iga"
	}
	t.Setenv(helperEnv, helper)
	dir := t.TempDir()
	page := filepath.Join(dir, "multi.html")
	var so, se bytes.Buffer
	if code := run([]string{"html", multi, "--source-dir", sources, "--launches", "10", "-o", page}, &so, &se); code != 0 {
		t.Fatalf("zestall html: exit %d: %s", code, se.String())
	}
	raw, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	// Self-contained: no URL the browser would fetch.
	if loc := regexp.MustCompile(`(?i)(src|href)="(https?:)?//|url\(|@import`).FindIndex(raw); loc != nil {
		t.Errorf("the page refers to something outside it: %q", raw[loc[0]:min(len(raw), loc[1]+40)])
	}
	dom := string(runChromium(t, browser, page, "--dump-dom"))
	if !strings.Contains(dom, "</html>") {
		t.Fatalf("Chromium dumped no document:\n%.500s", dom)
	}
	checks := []struct{ what, re string }{
		{"kernel table row of compute_poly with its link", `<td class="l"><a href="#k\d+">compute_poly</a></td><td>0\.227 ms</td>`},
		{"kernel table row of stream_triad", `>stream_triad</a></td><td>0\.074 ms</td>`},
		{"per-reason bar", `<span class="bar"><span style="width:[\d.]+%;background:#[0-9a-f]{6}" title="Active 1451`},
		{"hottest source line of compute_poly", `<tr class="hot"><td class="l">compute\.cl:9</td><td>3507 \(100\.0%\)</td>`},
		{"its source text", `y = y \* 0\.999f \+ sin\(x\) \* cos\(y\);`},
		{"hottest source line of stream_triad", `<tr class="hot"><td class="l">stream\.cl:10</td><td>935 \(54\.1%\)</td>`},
		{"hottest instruction of compute_poly", `<tr class="hot"><td class="l code">0x0014e8</td><td>1672 \(47\.7%\)</td>`},
		{"reason columns", `<th>PipeStall</th><th>DistStall</th>`},
		{"timeline lane", `<svg class="timeline"[^>]*>.*device 1</text>`},
		{"timeline slices", `<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="[\d.]+" fill="#[0-9a-f]{6}"><title>[\d.]+–[\d.]+ ms: busy \d+%, mostly (compute_poly|stream_triad)</title></rect>`},
		{"launch table", `the 10 longest launches of 64`},
	}
	if withIGA {
		checks = append(checks, struct{ what, re string }{"IGA text of the hottest instruction",
			`0x0014e8</td>.*?<td class="l code">\(W\) mul \(16\|M0\) acc0\.0&lt;1&gt;:ud r6\.0&lt;1;1,0&gt;:ud 0x63AB:uw</td>`},
			struct{ what, re string }{"IGA platform", `3507 EU stall samples; ISA 9408 bytes, disassembled for xehpc</p>`})
	}
	for _, c := range checks {
		if !regexp.MustCompile(c.re).MatchString(dom) {
			t.Errorf("rendered DOM lacks the %s (/%s/)", c.what, c.re)
		}
	}
	if n := strings.Count(dom, "<tr><td>") - strings.Count(dom, "<tr><td>rank"); n < 10 {
		t.Errorf("launch table: %d rows", n)
	}
	art := os.Getenv("ZESTALL_ARTEFACTS")
	if art == "" {
		art = dir
	}
	shot := filepath.Join(art, "zestall-html-multi.png")
	os.Remove(shot)
	runChromium(t, browser, page, "--screenshot="+shot)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10000 {
		t.Errorf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

// buildtreeHelperOrSkip returns the zestall-iga helper of the build tree,
// or "" when IGA cannot be loaded (the page is then checked without
// instruction text).
func buildtreeHelperOrSkip(t *testing.T) string {
	t.Helper()
	helper := buildtree.Get(t).Bin(helperName)
	if err := exec.Command(helper, "--version").Run(); err != nil {
		t.Logf("no disassembly (%v): checking the page without IGA text", err)
		return ""
	}
	return helper
}

// TestHTMLRanks: the page of several ranks has the per-run table and the
// imbalance, one timeline lane per rank's device, and is written only
// once (never overwritten). No browser needed.
func TestHTMLRanks(t *testing.T) {
	t.Setenv(helperEnv, "/nonexistent/zestall-iga")
	files := []string{rankCopy(t, "", serialized, 0, 0), rankCopy(t, "", multi, 1, 1)}
	page := filepath.Join(t.TempDir(), "ranks.html")
	var so, se bytes.Buffer
	if code := run(append([]string{"html", "-o", page}, files...), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{
		"device time per run: min 0.301 ms (rank 1), median 1.446 ms, max 2.591 ms (rank 0); max/mean 1.79",
		`<td class="l">rank 0</td>`, `<td class="l">rank 1</td>`,
		`>rank 0 device 1</text>`, `>rank 1 device 3</text>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if code := run(append([]string{"html", "-o", page}, files...), &so, &se); code != 1 || !strings.Contains(se.String(), "exists") {
		t.Errorf("html over an existing page: exit %d, %s", code, se.String())
	}
}
