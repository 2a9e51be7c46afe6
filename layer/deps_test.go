package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
)

// TestLinksNoProtobufRuntime: libzestall.so, this package's build, links
// no package of google.golang.org/protobuf nor the Go code generated for
// protobuf's runtime (proto/zestallpb and the packages that convert to and
// read it). Their package initialisation ran in every profiled process:
// zestallpb building the schema's descriptors and registering its types,
// 1.1 to 1.3 ms of the library's 2.3 to 2.5 ms of package initialisation
// and 17,199 of its 28,047 relative relocations, and even
// encoding/protowire alone brings internal/detrand, whose initialisation
// opens and reads the executable (BENCHMARKS.md, start-up). The writer
// side uses proto/zestallwire's plain types instead.
func TestLinksNoProtobufRuntime(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain lists the package graph")
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	const own = "github.com/zestall/zestall/"
	forbidden := []string{
		"google.golang.org/protobuf/",
		own + "proto/zestallpb",
		own + "proto/pbconv",
		own + "proto/pbstream",
	}
	deps := strings.Fields(string(out))
	found := false
	for _, p := range deps {
		found = found || p == own+"proto/stream"
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f) {
				t.Errorf("libzestall.so links %s; its writer side must use proto/zestallwire (and proto/stream's own wire helpers)", p)
			}
		}
	}
	if !found {
		t.Fatalf("go list -deps names no proto/stream among %d packages: not the library's graph?", len(deps))
	}
}

// TestLinksNoPprof: the default build of libzestall.so links no
// runtime/pprof (the developer settings ZESTALL_CPUPROFILE and
// ZESTALL_MEMPROFILE are built only with -tags zestall_profile). It added
// about 1,000 relative relocations (with compress/gzip and text/tabwriter),
// and a reachable runtime.MemProfile keeps the runtime's heap profiling on:
// a stack unwound every 512 KiB allocated, in every profiled process.
func TestLinksNoPprof(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain lists the package graph")
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		if p == "runtime/pprof" {
			t.Errorf("libzestall.so links runtime/pprof; only a build with -tags zestall_profile may")
		}
	}
	if len(deps) < 10 {
		t.Fatalf("go list -deps names %d packages: not the library's graph?", len(deps))
	}
	out, err = exec.Command(goTool, "list", "-tags", "zestall_profile", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -tags zestall_profile -deps: %v\n%s", err, out)
	}
	if !strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " runtime/pprof ") {
		t.Errorf("a build with -tags zestall_profile links no runtime/pprof: ZESTALL_CPUPROFILE would do nothing")
	}
}

// TestLinksNoELFOrDWARFReader: libzestall.so links neither debug/elf nor
// debug/dwarf nor their decompressors: format/zebin reads the few ELF
// tables it needs itself. debug/elf brought debug/dwarf, compress/flate,
// compress/zlib and internal/zstd, whose package initialisation (flate's
// and dwarf's tables, about 0.35 ms) ran in every profiled process before
// the application's first zeInit returned (BENCHMARKS.md, issue 14,
// session 10, startup).
func TestLinksNoELFOrDWARFReader(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain lists the package graph")
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps names %d packages: not the library's graph?", len(deps))
	}
	forbidden := map[string]bool{"debug/elf": true, "debug/dwarf": true, "compress/flate": true,
		"compress/zlib": true, "internal/zstd": true}
	for _, p := range deps {
		if forbidden[p] {
			t.Errorf("libzestall.so links %s; format/zebin reads ELF itself (elf.go)", p)
		}
	}
}
