package eustall

import (
	"errors"
	"slices"
)

// ErrCompositeData is returned by Aggregate for data that starts with a
// COMPOSITE header: the driver rejects root-device data in a sub-device
// calculation with ZE_RESULT_ERROR_INVALID_ARGUMENT (docs/eu-stall-sampling.md
// §7.2 "FLAT device or sub-device group").
var ErrCompositeData = errors.New("eustall: root-device (COMPOSITE) data given to a flat calculation")

// ErrNotComposite is returned by AggregateComposite for data without the
// COMPOSITE header (the driver returns ZE_RESULT_ERROR_INVALID_ARGUMENT).
var ErrNotComposite = errors.New("eustall: data has no COMPOSITE header")

// Aggregate computes what Intel's zetMetricGroupCalculateMultipleMetricValuesExp
// returns for a FLAT device or sub-device group given buf
// (docs/eu-stall-sampling.md §7.2 "FLAT device or sub-device group",
// docs/eu-stall-sampling.md §7.4 "Aggregation and value order"): one report per
// unique IP in ascending IP order, each report
// NumMetrics values in metric order — the masked IP field (not shifted) at
// IPIndex, every counter metric summed over the records as uint64. Report r,
// metric m is values[r*NumMetrics()+m]. dropped is the driver's
// ZE_RESULT_WARNING_DROPPED_DATA: some record has the drop flag (Xe-HPC only).
//
// Like the driver, it fails when len(buf) is not a multiple of 64 (the driver
// returns ZE_RESULT_ERROR_INVALID_SIZE; here a DecodeError) and when buf
// starts with the COMPOSITE magic (ErrCompositeData).
func (d *Decoder) Aggregate(buf []byte) (values []uint64, dropped bool, err error) {
	if _, err := checkSize(buf, 0); err != nil {
		return nil, false, err
	}
	if IsComposite(buf) {
		return nil, false, ErrCompositeData
	}
	values, dropped = d.aggregate(buf)
	return values, dropped, nil
}

func (d *Decoder) aggregate(buf []byte) ([]uint64, bool) {
	sums := make(map[uint64]*[MaxCounters]uint64)
	dropped := false
	var r Record
	n := len(buf) / RecordSize
	for i := 0; i < n; i++ {
		d.DecodeRecord((*[RecordSize]byte)(buf[i*RecordSize:]), &r)
		s := sums[r.IP]
		if s == nil {
			s = new([MaxCounters]uint64)
			sums[r.IP] = s
		}
		for j := 0; j < d.n; j++ {
			s[j] += uint64(r.Counters[j])
		}
		dropped = dropped || r.Dropped
	}
	ips := make([]uint64, 0, len(sums))
	for ip := range sums {
		ips = append(ips, ip)
	}
	slices.Sort(ips)
	m := len(d.names)
	values := make([]uint64, 0, len(ips)*m)
	for _, ip := range ips {
		s := sums[ip]
		j := 0
		for i := 0; i < m; i++ {
			if i == d.ipIndex {
				values = append(values, ip)
				continue
			}
			values = append(values, s[j])
			j++
		}
	}
	return values, dropped
}

// AggregateComposite computes what the driver's
// zetMetricGroupCalculateMultipleMetricValuesExp returns, in data mode, for a
// root-device group with numSubDevices sub-devices given COMPOSITE data
// (docs/eu-stall-sampling.md §7.3 "Root group (COMPOSITE)"): sets[s] holds the
// values of set s, for every s in
// [0, numSubDevices), including sets without data. As in the driver, each
// header chunk is aggregated separately and the results appended to its set,
// so an IP found in two chunks of one set appears twice (tools re-aggregate
// by IP). Empty input yields numSubDevices empty sets. Errors: data without
// the header (ErrNotComposite), framing errors from SplitComposite, a chunk
// whose setIndex is not below numSubDevices (DecodeError).
func (d *Decoder) AggregateComposite(buf []byte, numSubDevices int) (sets [][]uint64, dropped bool, err error) {
	if numSubDevices < 0 {
		numSubDevices = 0
	}
	sets = make([][]uint64, numSubDevices)
	if len(buf) == 0 {
		return sets, false, nil
	}
	if !IsComposite(buf) {
		return nil, false, ErrNotComposite
	}
	chunks, err := SplitComposite(buf)
	if err != nil {
		return nil, false, err
	}
	for _, c := range chunks {
		if uint64(c.SetIndex) >= uint64(numSubDevices) {
			return nil, false, DecodeError{Offset: c.Offset - CompositeHeaderSize + 8, Err: "chunk setIndex beyond the number of sub-devices"}
		}
		v, dr := d.aggregate(c.Data)
		sets[c.SetIndex] = append(sets[c.SetIndex], v...)
		dropped = dropped || dr
	}
	return sets, dropped, nil
}
