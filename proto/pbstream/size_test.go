package pbstream

import (
	"testing"

	"github.com/zestall/zestall/proto/stream"
)

// The format's size targets for the synthetic run: at most 16 bytes per
// stream.Launch record and 8 bytes per stall row, after compression, framing
// included.
func TestSizeTargets(t *testing.T) {
	perLaunch, perLaunchAbs, perRow := synthSizes(t)
	t.Logf("bytes per launch: %.2f compact form, %.2f absolute form; bytes per stall row: %.2f",
		perLaunch, perLaunchAbs, perRow)
	// What LaunchRun records (revision 8) change: on the synthetic run,
	// whose attributes vary, and on a loop.
	n := float64(synthLaunches)
	every := synthLaunches / synthFlushes
	noRuns := float64(len(encode(t, synthLaunchRecords(), every, &stream.WriterOptions{NoLaunchRuns: true}))) / n
	loop := loopLaunches(synthLaunches, 1, 0, false, false)
	loopRuns := float64(len(encode(t, loop, every, nil))) / n
	loopNoRuns := float64(len(encode(t, loop, every, &stream.WriterOptions{NoLaunchRuns: true}))) / n
	t.Logf("without LaunchRun records: %.2f bytes per launch; a loop: %.2f with them, %.2f without", noRuns, loopRuns, loopNoRuns)
	if perLaunch > 16 {
		t.Errorf("%.2f bytes per launch record, target ≤ 16", perLaunch)
	}
	if perRow > 8 {
		t.Errorf("%.2f bytes per stall row, target ≤ 8", perRow)
	}
}
