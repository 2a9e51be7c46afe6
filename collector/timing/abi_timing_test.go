package timing

import (
	"bytes"
	"go/format"
	"os"
	osexec "os/exec"
	"regexp"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
)

// TestABIUpToDate: abi_timing.go is what go tool cgo -godefs makes of the
// slot contract in cgo/abi.h now (the header is its only home). The
// no-timestamp reasons are in package abi, whose TestProtoAgrees checks
// them against the schema.
func TestABIUpToDate(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain")
	gencheck.Tool(t, "gcc", "Debian: apt-get install gcc; cgo -godefs runs the C compiler")
	cmd := osexec.Command(goTool, "tool", "cgo", "-objdir", t.TempDir(), "-godefs", "abi_timing_defs.go")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool cgo -godefs: %v\n%s", err, stderr.String())
	}
	out = regexp.MustCompile(`(?m)^(// cgo )-objdir \S+ `).ReplaceAll(out, []byte("$1"))
	got, err := format.Source(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("abi_timing.go")
	if err != nil {
		t.Fatal(err)
	}
	gencheck.Same(t, "collector/timing/abi_timing.go", have, got, "go generate ./collector/timing")
}
