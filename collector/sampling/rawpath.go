package sampling

import (
	"slices"

	"github.com/zestall/zestall/format/eustall"
)

// rawChecks is how many reads of a stream are decoded both ways before the
// raw decoder, if it agreed every time, replaces the driver's calculation.
const rawChecks = 16

// rawPath is a stream's raw-record decoder and its validation state.
type rawPath struct {
	dec     *eustall.Decoder
	agreed  int  // reads where raw decoding equalled the calculation
	trusted bool // agreed rawChecks times: the calculation is skipped
	failed  bool // disagreed once: the calculation is used for good
}

// newRawPath picks the raw decoder for a stream's device, from its
// platform and the metric names the driver reported; nil when none fits.
func newRawPath(d Device, st *Stream) *rawPath {
	var p eustall.Platform
	switch d.Platform {
	case "PVC":
		p = eustall.XeHPC
	case "BMG", "LNL":
		p = eustall.Xe2
	default:
		return nil
	}
	names := make([]string, len(st.Metrics))
	for i, m := range st.Metrics {
		names[i] = m.Name
	}
	dec, err := eustall.NewDecoder(p, names)
	if err != nil {
		return nil
	}
	return &rawPath{dec: dec}
}

// decode turns one read into per-set values: with the driver's calculation
// (zetMetricGroupCalculateMultipleMetricValuesExp, the documented path),
// checked against zestall's own raw decoder for the first reads; once they
// agreed rawChecks times, with the raw decoder alone (no copy into C, no
// driver call). A disagreement is counted and ends the raw path.
func (st *Reader) decode(i int, raw []byte) ([][]uint64, bool, error) {
	stream := st.streams[i]
	rp := st.raw[i]
	if rp != nil && rp.trusted {
		return rp.aggregate(raw, int(stream.SubDevices))
	}
	sets, flagged, err := st.src.Calculate(stream, raw)
	if rp == nil || rp.failed || err != nil {
		return sets, flagged, err
	}
	mine, mflag, merr := rp.aggregate(raw, int(stream.SubDevices))
	if merr != nil || mflag != flagged || !sameSets(mine, sets) {
		rp.failed = true
		st.lose(LossRawDisagreed)
		return sets, flagged, err
	}
	if rp.agreed++; rp.agreed >= rawChecks {
		rp.trusted = true
	}
	return sets, flagged, err
}

func (rp *rawPath) aggregate(raw []byte, subDevices int) ([][]uint64, bool, error) {
	if subDevices > 1 || eustall.IsComposite(raw) {
		return rp.dec.AggregateComposite(raw, subDevices)
	}
	v, dropped, err := rp.dec.Aggregate(raw)
	if err != nil {
		return nil, false, err
	}
	return [][]uint64{v}, dropped, nil
}

// sameSets compares per-set values; empty sets equal missing ones (the
// driver reports every set, even those without data).
func sameSets(a, b [][]uint64) bool {
	for s := range max(len(a), len(b)) {
		if !slices.Equal(set(a, s), set(b, s)) {
			return false
		}
	}
	return true
}

// set returns set s of sets, nil when there is none.
func set(sets [][]uint64, s int) []uint64 {
	if s < len(sets) {
		return sets[s]
	}
	return nil
}
