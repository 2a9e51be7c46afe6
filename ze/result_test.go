package ze

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
)

const installedHeader = "/usr/include/level_zero/ze_api.h"

// TestResultsUpToDate regenerates the table from the installed ze_api.h
// and fails when the committed results.go differs.
func TestResultsUpToDate(t *testing.T) {
	if _, err := os.Stat(installedHeader); err != nil {
		gencheck.Missing(t, installedHeader+" missing (Debian: apt-get install libze-dev)")
	}
	goTool := gencheck.Tool(t, "go", "the Go toolchain")
	out := filepath.Join(t.TempDir(), "results.go")
	gen := exec.Command(goTool, "run", "./internal/mkresult", "-header", installedHeader, "-o", out)
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", gen, err, b)
	}
	gencheck.SameFiles(t, "results.go", out, "go generate ./ze")
}

func TestResultError(t *testing.T) {
	for _, tc := range []struct {
		r        Result
		msg, str string
	}{
		{ErrorDeviceLost, "ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)", "ZE_RESULT_ERROR_DEVICE_LOST"},
		{WarningDroppedData, "ZE_RESULT_WARNING_DROPPED_DATA (0x70020001)", "ZE_RESULT_WARNING_DROPPED_DATA"},
		{ErrorUnknown, "ZE_RESULT_ERROR_UNKNOWN (0x7ffffffe)", "ZE_RESULT_ERROR_UNKNOWN"},
		{Success, "ZE_RESULT_SUCCESS (0x0)", "ZE_RESULT_SUCCESS"},
		{Result(0x12345678), "ze_result_t 0x12345678", "0x12345678"},
	} {
		if got := tc.r.Error(); got != tc.msg {
			t.Errorf("Error() = %q, want %q", got, tc.msg)
		}
		if got := tc.r.String(); got != tc.str {
			t.Errorf("String() = %q, want %q", got, tc.str)
		}
	}
}

func TestSentinels(t *testing.T) {
	if Check(uint32(Success)) != nil || Call("zeInit", 0) != nil {
		t.Fatal("success is an error")
	}
	err := fmt.Errorf("reading: %w", Call("zetMetricStreamerReadData", uint32(ErrorDeviceLost)))
	if !errors.Is(err, ErrorDeviceLost) || errors.Is(err, ErrorUnknown) {
		t.Errorf("errors.Is(%v) wrong", err)
	}
	if got := err.Error(); got != "reading: zetMetricStreamerReadData: ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)" {
		t.Errorf("message %q", got)
	}
	var ce *CallError
	if !errors.As(err, &ce) || ce.Call != "zetMetricStreamerReadData" {
		t.Errorf("errors.As CallError: %v", ce)
	}
	if r, ok := ResultOf(err); !ok || r != ErrorDeviceLost {
		t.Errorf("ResultOf = %v, %v", r, ok)
	}
	if r, ok := ResultOf(Check(uint32(ErrorInvalidSize))); !ok || r != ErrorInvalidSize {
		t.Errorf("ResultOf(Check) = %v, %v", r, ok)
	}
	if _, ok := ResultOf(errors.New("other")); ok {
		t.Error("ResultOf a plain error")
	}
}
