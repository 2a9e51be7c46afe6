package eustall

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

func hexRecord(head []byte, tail48 []byte) []byte {
	p := make([]byte, RecordSize)
	copy(p, head)
	copy(p[48:], tail48)
	return p
}

// The worked examples of docs/eu-stall-sampling.md §3.5 "Worked examples", bit
// for bit.
var workedExamples = []struct {
	name     string
	platform Platform
	record   []byte
	ip       uint64
	raw      []uint8 // raw order k = 0..n-1
	subslice uint16
	dropped  bool
	report   []uint64 // calculated report, metric order
}{
	{
		name:     "PVC",
		platform: XeHPC,
		record: hexRecord(
			[]byte{0x56, 0x34, 0x12, 0xa0, 0x20, 0x40, 0x60, 0x80, 0xc0, 0xe0, 0x00, 0x21, 0x01, 0x00, 0x00, 0x00},
			[]byte{0x03, 0x00, 0x00, 0x00}),
		ip:       0x123456,
		raw:      []uint8{5, 1, 2, 3, 4, 6, 7, 8, 9},
		subslice: 3,
		report:   []uint64{0x123456, 5, 2, 3, 4, 6, 7, 8, 9, 1},
	},
	{
		name:     "Xe2",
		platform: Xe2,
		record: hexRecord(
			[]byte{0x56, 0x34, 0x12, 0x40, 0x21, 0x40, 0x60, 0x80, 0xc0, 0xe0, 0x00, 0x21, 0xa1, 0x00, 0x01, 0x00}, nil),
		ip:     0x123456,
		raw:    []uint8{10, 1, 2, 3, 4, 6, 7, 8, 9, 5},
		report: []uint64{0x123456, 5, 10, 2, 3, 4, 6, 7, 8, 9, 1},
	},
	{
		name:     "Xe3",
		platform: Xe3,
		record: hexRecord(
			[]byte{0x56, 0x34, 0x12, 0x40, 0x21, 0x40, 0x60, 0x80, 0xc0, 0xe0, 0x00, 0x21, 0xa1, 0x00, 0x01, 0x00}, nil),
		ip:     0x123456,
		raw:    []uint8{10, 1, 2, 3, 4, 6, 7, 8, 9, 5},
		report: []uint64{0x123456, 5, 10, 2, 3, 4, 6, 7, 8, 9, 1},
	},
	{
		name:     "Xe3p",
		platform: Xe3p,
		record: hexRecord(
			[]byte{0x56, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00, 0x40, 0x21, 0x40, 0x60, 0x80, 0xc0, 0xe0, 0x00, 0x21, 0xa1, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, nil),
		ip:     0x123456,
		raw:    []uint8{10, 1, 2, 3, 4, 6, 7, 8, 9, 5},
		report: []uint64{0x123456, 5, 10, 2, 3, 4, 6, 7, 8, 9, 1},
	},
}

func TestWorkedExamples(t *testing.T) {
	for _, tc := range workedExamples {
		t.Run(tc.name, func(t *testing.T) {
			l, err := LayoutOf(tc.platform)
			if err != nil {
				t.Fatal(err)
			}
			// The reference decoder agrees with the example.
			ip, raw := intelDecode(l, tc.record)
			if ip != tc.ip || !slices.Equal(raw, tc.raw) {
				t.Fatalf("intelDecode = %#x %v, want %#x %v", ip, raw, tc.ip, tc.raw)
			}
			// The test encoder reproduces the example's bytes (Xe2/Xe3 also
			// carry end_flag = 1 at bit 112, outside the counters).
			enc := encodeRecord(l, tc.ip, tc.raw, tc.subslice, 0)
			if tc.platform == Xe2 || tc.platform == Xe3 {
				setBits(&enc, 112, 1, 1)
			}
			if !bytes.Equal(enc[:], tc.record) {
				t.Fatalf("encodeRecord =\n% x\nwant\n% x", enc[:], tc.record)
			}

			d, err := NewDecoder(tc.platform, DriverMetricNames(tc.platform))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := d.Decode(nil, tc.record)
			if err != nil || len(recs) != 1 {
				t.Fatalf("Decode: %d records, %v", len(recs), err)
			}
			r := recs[0]
			if r.IP != tc.ip || r.ByteAddrLow32 != uint32(tc.ip<<3) || r.Subslice != tc.subslice || r.Dropped != tc.dropped {
				t.Errorf("record = %+v", r)
			}
			wantCounters := tc.report[1:]
			if got := r.Counters[:d.NumCounters()]; !equalU8U64(got, wantCounters) {
				t.Errorf("counters = %v, want %v", got, wantCounters)
			}
			vals, dropped, err := d.Aggregate(tc.record)
			if err != nil || dropped || !slices.Equal(vals, tc.report) {
				t.Errorf("Aggregate = %v %v %v, want %v", vals, dropped, err, tc.report)
			}
		})
	}
}

func equalU8U64(a []uint8, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if uint64(a[i]) != b[i] {
			return false
		}
	}
	return true
}

func TestMetricSources(t *testing.T) {
	tests := []struct {
		platform Platform
		names    []string
		want     []int
		err      error
	}{
		// The mapping tables of docs/eu-stall-sampling.md §3.4 "Decoding rule".
		{XeHPC, DriverMetricNames(XeHPC), []int{SourceIP, 0, 2, 3, 4, 5, 6, 7, 8, 1}, nil},
		{Xe2, DriverMetricNames(Xe2), []int{SourceIP, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1}, nil},
		{Xe3, DriverMetricNames(Xe3), []int{SourceIP, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1}, nil},
		{Xe3p, DriverMetricNames(Xe3p), []int{SourceIP, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1}, nil},
		// Historical name of PSDepStall.
		{Xe2, []string{"IP", "Active", "Tdr", "ControlStall", "PipeStall", "SendStall", "DistStall", "SbidStall", "SyncStall", "InstrFetchStall", "OtherStall"},
			[]int{SourceIP, 9, 0, 2, 3, 4, 5, 6, 7, 8, 1}, nil},
		// Any order and any subset are fine.
		{XeHPC, []string{"OtherStall", "IP", "Active"}, []int{1, SourceIP, 0}, nil},
		{XeHPC, []string{"IP"}, []int{SourceIP}, nil},
		// Errors.
		{XeHPC, []string{"IP", "PSDepStall"}, nil, ErrUnknownMetric},
		{XeHPC, []string{"IP", "Tdr"}, nil, ErrUnknownMetric},
		{Xe2, []string{"IP", "DistAcc"}, nil, ErrUnknownMetric},
		{Xe2, []string{"IP", "active"}, nil, ErrUnknownMetric},
		{Xe2, []string{"IP", "Tdr", "PSDepStall"}, nil, ErrDuplicateMetric},
		{Xe2, []string{"IP", "IP"}, nil, ErrDuplicateMetric},
		{Xe2, []string{"Active"}, nil, ErrNoIPMetric},
		{Xe2, nil, nil, ErrNoIPMetric},
		{Xe2, make([]string, 12), nil, ErrTooManyMetrics},
	}
	for _, tc := range tests {
		l, err := LayoutOf(tc.platform)
		if err != nil {
			t.Fatal(err)
		}
		got, err := l.MetricSources(tc.names)
		if !errors.Is(err, tc.err) || !slices.Equal(got, tc.want) {
			t.Errorf("%v MetricSources(%q) = %v, %v; want %v, %v", tc.platform, tc.names, got, err, tc.want, tc.err)
		}
		var me *MetricError
		if tc.err != nil && !errors.As(err, &me) {
			t.Errorf("error %T is not a *MetricError", err)
		}
	}
	if _, err := LayoutOf(PlatformUnknown); err == nil {
		t.Error("LayoutOf(PlatformUnknown) succeeded")
	}
}

func TestParsePlatform(t *testing.T) {
	for _, p := range []Platform{XeHPC, Xe2, Xe3, Xe3p} {
		q, err := ParsePlatform(p.String())
		if err != nil || q != p {
			t.Errorf("ParsePlatform(%q) = %v, %v", p.String(), q, err)
		}
	}
	if p, _ := ParsePlatform("PVC"); p != XeHPC {
		t.Errorf("ParsePlatform(PVC) = %v", p)
	}
	if _, err := ParsePlatform("dg2"); err == nil {
		t.Error("ParsePlatform(dg2) succeeded")
	}
	for _, tc := range []struct {
		core, product uint32
		want          Platform
	}{
		{0x0c08, 0, XeHPC}, {0x0c09, 0, Xe2}, {0x1e00, 0, Xe3}, {0x2300, 0, Xe3p},
		{0, 1271, XeHPC}, {0, 1275, Xe2}, {0, 1274, Xe2}, {0, 1300, Xe3},
		{0x0c07, 1270, PlatformUnknown}, {0, 1270, PlatformUnknown}, {0, 0, PlatformUnknown},
	} {
		if got := PlatformFor(tc.core, tc.product); got != tc.want {
			t.Errorf("PlatformFor(%#x, %d) = %v, want %v", tc.core, tc.product, got, tc.want)
		}
	}
	if s := Platform(77).String(); s != "Platform(77)" {
		t.Errorf("String = %q", s)
	}
}

// TestRoundTrip checks encode → decode and decode == Intel's algorithm on
// random records, for every platform, with the driver's metric lists and with
// shuffled lists.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, p := range []Platform{XeHPC, Xe2, Xe3, Xe3p} {
		l, _ := LayoutOf(p)
		names := DriverMetricNames(p)
		for iter := 0; iter < 200; iter++ {
			ns := slices.Clone(names)
			if iter%2 == 1 {
				rng.Shuffle(len(ns), func(i, j int) { ns[i], ns[j] = ns[j], ns[i] })
			}
			d, err := NewDecoder(p, ns)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := l.MetricSources(ns)
			const n = 16
			buf := make([]byte, 0, n*RecordSize)
			type want struct {
				ip       uint64
				raw      []uint8
				sub, flg uint16
			}
			var wants []want
			for i := 0; i < n; i++ {
				w := want{ip: rng.Uint64() & l.IPMask, raw: make([]uint8, len(l.Raw)), sub: uint16(rng.Uint32()), flg: uint16(rng.Uint32())}
				for k := range w.raw {
					w.raw[k] = uint8(rng.Uint32())
				}
				rec := encodeRecord(l, w.ip, w.raw, w.sub, w.flg)
				// Random bits outside the fields must not matter.
				if p == Xe2 || p == Xe3 {
					setBits(&rec, 109, 4, rng.Uint64())
				}
				for b := 24; b < 48; b++ {
					rec[b] = byte(rng.Uint32())
				}
				buf = append(buf, rec[:]...)
				wants = append(wants, w)
			}
			var seen []Record
			err = d.DecodeFunc(buf, func(off int, r *Record) {
				if off != len(seen)*RecordSize {
					t.Fatalf("offset %d for record %d", off, len(seen))
				}
				seen = append(seen, *r)
			})
			if err != nil {
				t.Fatal(err)
			}
			recs, err := d.Decode(make([]Record, 0, 1), buf)
			if err != nil || !slices.Equal(recs, seen) {
				t.Fatalf("Decode and DecodeFunc disagree: %v", err)
			}
			for i, r := range recs {
				w := wants[i]
				ip, raw := intelDecode(l, buf[i*RecordSize:])
				if ip != w.ip || !slices.Equal(raw, w.raw) {
					t.Fatalf("%v: reference decoder disagrees with encoder", p)
				}
				if r.IP != w.ip || r.ByteAddrLow32 != uint32(w.ip<<3) || r.Subslice != w.sub || r.Flags != w.flg {
					t.Fatalf("%v: record %d = %+v, want %+v", p, i, r, w)
				}
				if r.Dropped != (p == XeHPC && w.flg&0x100 != 0) {
					t.Fatalf("%v: Dropped = %v with flags %#x", p, r.Dropped, w.flg)
				}
				j := 0
				for _, k := range src {
					if k == SourceIP {
						continue
					}
					if r.Counters[j] != w.raw[k] {
						t.Fatalf("%v %q: counter %d = %d, want raw[%d] = %d", p, ns, j, r.Counters[j], k, w.raw[k])
					}
					j++
				}
				for ; j < MaxCounters; j++ {
					if r.Counters[j] != 0 {
						t.Fatalf("unused counter %d = %d", j, r.Counters[j])
					}
				}
			}
		}
	}
}

func TestDecodePartial(t *testing.T) {
	d, _ := NewDecoder(XeHPC, DriverMetricNames(XeHPC))
	buf := make([]byte, 2*RecordSize+10)
	recs, err := d.Decode(nil, buf)
	var de DecodeError
	if len(recs) != 2 || !errors.As(err, &de) || de.Offset != 128 {
		t.Fatalf("Decode = %d records, %v", len(recs), err)
	}
	n := 0
	err = d.DecodeFunc(buf, func(int, *Record) { n++ })
	if n != 2 || err == nil {
		t.Fatalf("DecodeFunc: %d records, %v", n, err)
	}
	if _, _, err := d.Aggregate(buf); !errors.As(err, &de) || de.Offset != 128 {
		t.Fatalf("Aggregate: %v", err)
	}
	if recs, err := d.Decode(nil, nil); len(recs) != 0 || err != nil {
		t.Fatalf("Decode(nil) = %v, %v", recs, err)
	}
}

func header(magic, size, set, reserved uint32) []byte {
	h := make([]byte, CompositeHeaderSize)
	binary.LittleEndian.PutUint32(h[0:], magic)
	binary.LittleEndian.PutUint32(h[4:], size)
	binary.LittleEndian.PutUint32(h[8:], set)
	binary.LittleEndian.PutUint32(h[12:], reserved)
	return h
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestSplitComposite(t *testing.T) {
	l, _ := LayoutOf(XeHPC)
	r1 := encodeRecord(l, 0x100, []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9}, 0, 0)
	r2 := encodeRecord(l, 0x108, []uint8{1, 1, 1, 1, 1, 1, 1, 1, 1}, 0, 0)
	// The example of docs/eu-stall-sampling.md §6.2 "Root device with sub-devices
	// (COMPOSITE)": sub-device 0 has 2 records, sub-device 1 none.
	ex := cat(header(CompositeMagic, 128, 0, 0), r1[:], r2[:], header(CompositeMagic, 0, 1, 0))
	if len(ex) != 160 || !bytes.Equal(ex[:4], []byte{0xba, 0xbc, 0xed, 0xfe}) {
		t.Fatalf("bad example: %d bytes", len(ex))
	}
	chunks, err := SplitComposite(ex)
	if err != nil || len(chunks) != 2 {
		t.Fatalf("SplitComposite = %v, %v", chunks, err)
	}
	if chunks[0].SetIndex != 0 || chunks[0].Offset != 16 || len(chunks[0].Data) != 128 ||
		chunks[1].SetIndex != 1 || chunks[1].Offset != 160 || len(chunks[1].Data) != 0 {
		t.Fatalf("chunks = %+v", chunks)
	}

	bad := []struct {
		name   string
		buf    []byte
		chunks int
		offset int64
	}{
		{"bad magic first", cat(header(0xFEEDBCBB, 0, 0, 0)), 0, 0},
		{"bad magic second", cat(header(CompositeMagic, 64, 0, 0), r1[:], header(0x12345678, 0, 1, 0)), 1, 80},
		{"size not multiple", cat(header(CompositeMagic, 65, 0, 0), r1[:], []byte{0}), 0, 4},
		{"size past end", cat(header(CompositeMagic, 128, 0, 0), r1[:]), 0, 4},
		{"huge size", cat(header(CompositeMagic, 0xFFFFFFC0, 0, 0), r1[:]), 0, 4},
		{"truncated header", cat(header(CompositeMagic, 64, 0, 0), r1[:], []byte{0xba, 0xbc, 0xed, 0xfe, 0}), 1, 84},
	}
	for _, tc := range bad {
		chunks, err := SplitComposite(tc.buf)
		var de DecodeError
		if !errors.As(err, &de) || de.Offset != tc.offset || len(chunks) != tc.chunks {
			t.Errorf("%s: SplitComposite = %d chunks, %v; want %d chunks, error at %d", tc.name, len(chunks), err, tc.chunks, tc.offset)
		}
	}
	if c, err := SplitComposite(nil); c != nil || err != nil {
		t.Errorf("SplitComposite(nil) = %v, %v", c, err)
	}
}

func TestAggregate(t *testing.T) {
	for _, p := range []Platform{XeHPC, Xe2, Xe3p} {
		l, _ := LayoutOf(p)
		d, _ := NewDecoder(p, DriverMetricNames(p))
		raw := func(v uint8) []uint8 {
			r := make([]uint8, len(l.Raw))
			for k := range r {
				r[k] = v + uint8(k)
			}
			return r
		}
		recs := [][RecordSize]byte{
			encodeRecord(l, 0x300, raw(10), 0, 0),
			encodeRecord(l, 0x100, raw(1), 0, 0),
			encodeRecord(l, 0x300, raw(200), 0, DropFlag),
			encodeRecord(l, 0x200, raw(0), 0, 0),
			encodeRecord(l, 0x300, raw(250), 0, 0),
		}
		var buf []byte
		for _, r := range recs {
			buf = append(buf, r[:]...)
		}
		vals, dropped, err := d.Aggregate(buf)
		if err != nil {
			t.Fatal(err)
		}
		if dropped != (p == XeHPC) {
			t.Errorf("%v: dropped = %v", p, dropped)
		}
		m := d.NumMetrics()
		if len(vals) != 3*m {
			t.Fatalf("%v: %d values, want %d", p, len(vals), 3*m)
		}
		src, _ := l.MetricSources(DriverMetricNames(p))
		for r, ip := range []uint64{0x100, 0x200, 0x300} {
			rep := vals[r*m : (r+1)*m]
			if rep[0] != ip {
				t.Errorf("%v: report %d IP = %#x, want %#x", p, r, rep[0], ip)
			}
			for i := 1; i < m; i++ {
				k := uint64(src[i])
				var want uint64
				switch ip {
				case 0x100:
					want = 1 + k
				case 0x200:
					want = k
				case 0x300:
					// 8-bit fields summed as uint64: no wrap-around in the sum.
					want = uint64(uint8(10+k)) + uint64(uint8(200+k)) + uint64(uint8(250+k))
				}
				if rep[i] != want {
					t.Errorf("%v: report %#x metric %d = %d, want %d", p, ip, i, rep[i], want)
				}
			}
		}
		if _, _, err := d.Aggregate(cat(header(CompositeMagic, 0, 0, 0), make([]byte, 48))); !errors.Is(err, ErrCompositeData) {
			t.Errorf("Aggregate(composite) = %v", err)
		}
		if v, _, err := d.Aggregate(nil); len(v) != 0 || err != nil {
			t.Errorf("Aggregate(nil) = %v, %v", v, err)
		}
	}
}

func TestAggregateComposite(t *testing.T) {
	l, _ := LayoutOf(XeHPC)
	d, _ := NewDecoder(XeHPC, DriverMetricNames(XeHPC))
	one := []uint8{1, 1, 1, 1, 1, 1, 1, 1, 1}
	a := encodeRecord(l, 0x10, one, 0, 0)
	b := encodeRecord(l, 0x20, one, 0, DropFlag)
	buf := cat(
		header(CompositeMagic, 128, 0, 0), a[:], a[:],
		header(CompositeMagic, 64, 2, 0), b[:],
		header(CompositeMagic, 64, 0, 0), a[:], // second chunk of set 0: the IP repeats, as in the driver's data mode
	)
	sets, dropped, err := d.AggregateComposite(buf, 3)
	if err != nil || !dropped || len(sets) != 3 {
		t.Fatalf("AggregateComposite = %v, %v, %v", sets, dropped, err)
	}
	want0 := []uint64{0x10, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0x10, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	want2 := []uint64{0x20, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	if !slices.Equal(sets[0], want0) || len(sets[1]) != 0 || !slices.Equal(sets[2], want2) {
		t.Errorf("sets = %v", sets)
	}
	if _, _, err := d.AggregateComposite(buf, 2); err == nil {
		t.Error("setIndex 2 accepted with 2 sub-devices")
	}
	if _, _, err := d.AggregateComposite(a[:], 2); !errors.Is(err, ErrNotComposite) {
		t.Errorf("flat data: %v", err)
	}
	if s, _, err := d.AggregateComposite(nil, 2); len(s) != 2 || err != nil {
		t.Errorf("empty: %v, %v", s, err)
	}
}

func TestAddrIndex(t *testing.T) {
	// docs/eu-stall-sampling.md §8.2 "Canonical rule and worked example": base
	// 0x0000_8000_0001_2300, IP 0x2478 → offset 0xC0.
	base := uint64(0x0000_8000_0001_2300)
	x, err := NewAddrIndex([]KernelRange{
		{Base32: uint32(base), Size: 0x400},
		{Base32: 0x1000, Size: 0x100},
		{Base32: 0x1080, Size: 0x100}, // overlaps the previous one: the greater base wins
		{Base32: 0xFFFFFF00, Size: 0x200},
		{Base32: 0x5000, Size: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := LayoutOf(XeHPC)
	d, _ := NewDecoder(XeHPC, DriverMetricNames(XeHPC))
	rec := encodeRecord(l, 0x2478, make([]uint8, 9), 0, 0)
	var r Record
	d.DecodeRecord(&rec, &r)
	if r.ByteAddrLow32 != 0x123C0 {
		t.Fatalf("ByteAddrLow32 = %#x", r.ByteAddrLow32)
	}
	tests := []struct {
		addr   uint32
		kernel int
		off    uint32
		ok     bool
	}{
		{r.ByteAddrLow32, 0, 0xC0, true},
		{0x12300, 0, 0, true},
		{0x126FF, 0, 0x3FF, true},
		{0x12700, -1, 0, false},
		{0x122FF, -1, 0, false},
		{0x0, 3, 0x100, true}, // wrapped part of the kernel at 0xFFFFFF00
		{0xFF, 3, 0x1FF, true},
		{0x100, -1, 0, false},
		{0xFFFFFF00, 3, 0, true},
		{0xFFFFFFFF, 3, 0xFF, true},
		{0x1000, 1, 0, true},
		{0x107F, 1, 0x7F, true},
		{0x1080, 2, 0, true},
		{0x1100, 2, 0x80, true},
		{0x1180, -1, 0, false},
		{0x5000, -1, 0, false},
	}
	for _, tc := range tests {
		k, off, ok := x.Lookup(tc.addr)
		if k != tc.kernel || off != tc.off || ok != tc.ok {
			t.Errorf("Lookup(%#x) = %d, %#x, %v; want %d, %#x, %v", tc.addr, k, off, ok, tc.kernel, tc.off, tc.ok)
		}
	}
	empty, _ := NewAddrIndex(nil)
	if _, _, ok := empty.Lookup(0); ok {
		t.Error("empty index found something")
	}
}

func TestAllocs(t *testing.T) {
	d, _ := NewDecoder(Xe2, DriverMetricNames(Xe2))
	buf := make([]byte, 100*RecordSize)
	dst := make([]Record, 0, 100)
	x, _ := NewAddrIndex([]KernelRange{{0, 0x1000}})
	if n := testing.AllocsPerRun(10, func() { dst, _ = d.Decode(dst[:0], buf) }); n != 0 {
		t.Errorf("Decode: %v allocations per run", n)
	}
	var r Record
	if n := testing.AllocsPerRun(10, func() {
		for i := 0; i < len(buf); i += RecordSize {
			d.DecodeRecord((*[RecordSize]byte)(buf[i:]), &r)
			x.Lookup(r.ByteAddrLow32)
		}
	}); n != 0 {
		t.Errorf("DecodeRecord+Lookup: %v allocations per run", n)
	}
	// DecodeFunc allocates its one reused Record per call, not per record.
	fn := func(_ int, r *Record) { x.Lookup(r.ByteAddrLow32) }
	if n := testing.AllocsPerRun(10, func() { _ = d.DecodeFunc(buf, fn) }); n > 1 {
		t.Errorf("DecodeFunc: %v allocations per run of 100 records", n)
	}
}
