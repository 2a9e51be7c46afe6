package eustall

import (
	"slices"
	"testing"
)

func FuzzDecode(f *testing.F) {
	for _, tc := range workedExamples {
		f.Add(uint8(tc.platform), tc.record)
	}
	f.Add(uint8(XeHPC), make([]byte, 130))
	f.Fuzz(func(t *testing.T, plat uint8, buf []byte) {
		p := Platform(plat%4 + 1)
		l, err := LayoutOf(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := l.NewDecoder(DriverMetricNames(p))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := d.Decode(nil, buf)
		if len(recs) != len(buf)/RecordSize || (err != nil) != (len(buf)%RecordSize != 0) {
			t.Fatalf("Decode: %d records from %d bytes, err %v", len(recs), len(buf), err)
		}
		src, _ := l.MetricSources(DriverMetricNames(p))
		var total [MaxCounters]uint64
		for i, r := range recs {
			ip, raw := intelDecode(l, buf[i*RecordSize:])
			if r.IP != ip || r.ByteAddrLow32 != uint32(ip<<3) {
				t.Fatalf("IP %#x, reference %#x", r.IP, ip)
			}
			for j := 0; j < d.NumCounters(); j++ {
				if r.Counters[j] != raw[src[j+1]] {
					t.Fatalf("counter %d = %d, reference %d", j, r.Counters[j], raw[src[j+1]])
				}
				total[j] += uint64(r.Counters[j])
			}
		}
		vals, _, err := d.Aggregate(buf)
		if err != nil {
			return
		}
		// Aggregation preserves the counter totals and sorts IPs strictly.
		m := d.NumMetrics()
		var sum [MaxCounters]uint64
		var prev uint64
		for r := 0; r*m < len(vals); r++ {
			rep := vals[r*m : (r+1)*m]
			if r > 0 && rep[0] <= prev {
				t.Fatalf("IPs not ascending: %#x after %#x", rep[0], prev)
			}
			prev = rep[0]
			for j := 1; j < m; j++ {
				sum[j-1] += rep[j]
			}
		}
		if sum != total {
			t.Fatalf("aggregate totals %v, records %v", sum, total)
		}
	})
}

func FuzzSplitComposite(f *testing.F) {
	f.Add(cat(header(CompositeMagic, 64, 0, 0), make([]byte, 64), header(CompositeMagic, 0, 1, 0)))
	f.Add(cat(header(CompositeMagic, 128, 0, 0), make([]byte, 64)))
	f.Add([]byte{0xba, 0xbc, 0xed})
	f.Fuzz(func(t *testing.T, buf []byte) {
		chunks, err := SplitComposite(buf)
		end := int64(0)
		for _, c := range chunks {
			if c.Offset != end+CompositeHeaderSize || len(c.Data)%RecordSize != 0 ||
				!slices.Equal(c.Data, buf[c.Offset:c.Offset+int64(len(c.Data))]) {
				t.Fatalf("bad chunk %+v after %d", c, end)
			}
			end = c.Offset + int64(len(c.Data))
		}
		if err == nil && end != int64(len(buf)) {
			t.Fatalf("no error but %d of %d bytes consumed", end, len(buf))
		}
		d, _ := NewDecoder(Xe2, DriverMetricNames(Xe2))
		_, _, _ = d.AggregateComposite(buf, 4)
	})
}
