package abi

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestGeneratedUpToDate regenerates abi.go from cgo/abi.h and fails when
// the committed file differs.
func TestGeneratedUpToDate(t *testing.T) {
	gencheck.Tool(t, "go", "the Go toolchain")
	gencheck.Tool(t, "gcc", "Debian: apt-get install gcc; cgo -godefs runs the C compiler")
	sh := gencheck.Tool(t, "sh", "a POSIX shell")
	out := filepath.Join(t.TempDir(), "abi.go")
	if b, err := exec.Command(sh, "generate.sh", out).CombinedOutput(); err != nil {
		t.Fatalf("generate.sh: %v\n%s", err, b)
	}
	gencheck.SameFiles(t, "abi.go", out, "go generate ./abi")
}

// TestProtoAgrees: the values the output schema defines too are the same.
func TestProtoAgrees(t *testing.T) {
	for _, tc := range []struct {
		name      string
		abi, want int32
	}{
		{"ZS_OK", StallOn, int32(pb.StallSamplingOff_STALL_SAMPLING_OFF_UNSPECIFIED)},
		{"ZS_OFF_DISABLED", StallOffDisabled, int32(pb.StallSamplingOff_STALL_SAMPLING_OFF_DISABLED)},
		{"ZS_OFF_NO_METRICS", StallOffNoMetrics, int32(pb.StallSamplingOff_STALL_SAMPLING_OFF_METRICS_NOT_ENABLED)},
		{"ZS_OFF_NO_GROUP", StallOffNoGroup, int32(pb.StallSamplingOff_STALL_SAMPLING_OFF_NO_GROUP)},
		{"ZS_OFF_OPEN_FAILED", StallOffOpenFailed, int32(pb.StallSamplingOff_STALL_SAMPLING_OFF_OPEN_FAILED)},
		{"ZL_REASON_POOL_EXHAUSTED", NoTimestampPoolExhausted, int32(pb.NoTimestampReason_NO_TIMESTAMP_REASON_POOL_EXHAUSTED)},
		{"ZL_REASON_EVENT_ERROR", NoTimestampEventError, int32(pb.NoTimestampReason_NO_TIMESTAMP_REASON_EVENT_ERROR)},
		{"ZL_REASON_UNSUPPORTED", NoTimestampUnsupported, int32(pb.NoTimestampReason_NO_TIMESTAMP_REASON_UNSUPPORTED)},
		{"ZL_REASON_APPENDED_WHILE_STOPPED", NoTimestampAppendedWhileStopped, int32(pb.NoTimestampReason_NO_TIMESTAMP_REASON_APPENDED_WHILE_STOPPED)},
		{"ZX_XPTI_UNKNOWN", XptiUnknown, int32(pb.SyclXptiState_SYCL_XPTI_STATE_UNKNOWN)},
		{"ZX_XPTI_ENABLED", XptiEnabled, int32(pb.SyclXptiState_SYCL_XPTI_STATE_ENABLED)},
		{"ZX_XPTI_APPENDED", XptiAppended, int32(pb.SyclXptiState_SYCL_XPTI_STATE_APPENDED)},
		{"ZX_XPTI_LISTED", XptiListed, int32(pb.SyclXptiState_SYCL_XPTI_STATE_LISTED)},
		{"ZX_XPTI_OFF_USER", XptiOffUser, int32(pb.SyclXptiState_SYCL_XPTI_STATE_OFF_USER)},
		{"ZX_XPTI_OFF_ENV", XptiOffEnv, int32(pb.SyclXptiState_SYCL_XPTI_STATE_OFF_ENV)},
		{"ZX_XPTI_SECOND_COPY", XptiSecondCopy, int32(pb.SyclXptiState_SYCL_XPTI_STATE_SECOND_COPY)},
		{"ZX_SPAN_TASK", SyclSpanTask, int32(pb.SyclSpanKind_SYCL_SPAN_KIND_TASK)},
		{"ZX_SPAN_BARRIER", SyclSpanBarrier, int32(pb.SyclSpanKind_SYCL_SPAN_KIND_BARRIER)},
		{"ZX_SPAN_WAIT", SyclSpanWait, int32(pb.SyclSpanKind_SYCL_SPAN_KIND_WAIT)},
	} {
		if tc.abi != tc.want {
			t.Errorf("%s = %d, proto says %d", tc.name, tc.abi, tc.want)
		}
	}
}
