package pbstream

import "testing"

// The format's size targets for the synthetic run: at most 16 bytes per
// stream.Launch record and 8 bytes per stall row, after compression, framing
// included.
func TestSizeTargets(t *testing.T) {
	perLaunch, perLaunchAbs, perRow := synthSizes(t)
	t.Logf("bytes per launch: %.2f compact form, %.2f absolute form; bytes per stall row: %.2f",
		perLaunch, perLaunchAbs, perRow)
	if perLaunch > 16 {
		t.Errorf("%.2f bytes per launch record, target ≤ 16", perLaunch)
	}
	if perRow > 8 {
		t.Errorf("%.2f bytes per stall row, target ≤ 8", perRow)
	}
}
