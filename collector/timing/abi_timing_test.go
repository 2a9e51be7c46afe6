package timing

import (
	"bytes"
	"go/format"
	"os"
	osexec "os/exec"
	"regexp"
	"testing"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestABIUpToDate: abi_timing.go is what go tool cgo -godefs makes of
// cgo/abi_timing.h now (the slot contract has one home: the header).
func TestABIUpToDate(t *testing.T) {
	if _, err := osexec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: go tool cgo -godefs needs a C compiler to read cgo/abi_timing.h")
	}
	goTool, err := osexec.LookPath("go")
	if err != nil {
		goTool = "/usr/local/go/bin/go"
	}
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
	if !bytes.Equal(got, have) {
		t.Errorf("abi_timing.go differs from what cgo/abi_timing.h generates: run go generate ./collector/timing\ngenerated:\n%s", got)
	}
}

// TestABIReasons: the launch path's no-timestamp reasons are the values of
// the schema's NoTimestampReason (the harvester writes them unchanged).
func TestABIReasons(t *testing.T) {
	for _, c := range []struct {
		c    int
		want pb.NoTimestampReason
	}{
		{ReasonPoolExhausted, pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED},
		{ReasonEventError, pb.NoTimestampReason_NO_TIMESTAMP_REASON_EVENT_ERROR},
		{ReasonUnsupported, pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED},
		{ReasonAppendedWhileStopped, pb.NoTimestampReason_NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED},
	} {
		if pb.NoTimestampReason(c.c) != c.want {
			t.Errorf("ZL_REASON %d, schema %v = %d", c.c, c.want, c.want)
		}
	}
}
