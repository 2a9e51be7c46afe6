package stream

import (
	"encoding/binary"
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/zestall/zestall/proto/zestallpb"
)

// TestLaunchRunEncoding: appendRun writes the bytes proto.Marshal makes of
// the LaunchRun record it stands for (packed lists in field order, lists
// of only their empty meaning left out, host_append_delta_ns always
// there), for short and full runs, zero, negative and extreme values.
func TestLaunchRunEncoding(t *testing.T) {
	type launch struct {
		appendDelta, idDelta, startDelay int64
		duration                         uint64
		repeat, executionIndex           uint32
		syclTask                         uint64
	}
	full := make([]launch, maxRun)
	for i := range full {
		full[i] = launch{appendDelta: int64(150 + i%500), startDelay: int64(i % 70), repeat: 1 + uint32(i%maxRepeat)}
	}
	cases := []struct {
		name string
		ls   []launch
	}{
		{"one launch, all zero", []launch{{repeat: 1}}},
		{"a loop: deltas only", []launch{{appendDelta: 210, startDelay: 40, repeat: 1}, {appendDelta: 515, startDelay: 61, repeat: 1}, {appendDelta: 188, repeat: 1}}},
		{"negative deltas", []launch{{appendDelta: -5, idDelta: -1, startDelay: -300, repeat: 1}, {appendDelta: 1, repeat: 1}}},
		{"repeat of 2 to 8", []launch{{appendDelta: 1, repeat: 2}, {appendDelta: 2, repeat: 8}, {appendDelta: 3, repeat: 1}}},
		{"regular lists", []launch{{appendDelta: 9, duration: 2000, repeat: 1, executionIndex: 4}, {appendDelta: 9, duration: 2100, repeat: 1, executionIndex: 5}}},
		{"SYCL tasks", []launch{{appendDelta: 9, repeat: 1, syclTask: 77}, {appendDelta: 9, repeat: 1}}},
		{"extremes", []launch{{appendDelta: math.MinInt64, idDelta: math.MaxInt64, startDelay: math.MinInt64, duration: math.MaxUint64,
			repeat: math.MaxUint32, executionIndex: math.MaxUint32, syclTask: math.MaxUint64}}},
		{"full run", full},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r launchRun
			want := &pb.LaunchRun{}
			for _, l := range c.ls {
				r.add(l.appendDelta, l.idDelta, l.startDelay, l.duration, l.repeat, l.executionIndex, l.syclTask)
				want.HostAppendDeltaNs = append(want.HostAppendDeltaNs, l.appendDelta)
				want.IdDelta = append(want.IdDelta, l.idDelta)
				want.DeviceStartDelayNs = append(want.DeviceStartDelayNs, l.startDelay)
				want.DeviceDurationNs = append(want.DeviceDurationNs, l.duration)
				want.RepeatOf = append(want.RepeatOf, l.repeat)
				want.ExecutionIndex = append(want.ExecutionIndex, l.executionIndex)
				want.SyclTaskId = append(want.SyclTaskId, l.syclTask)
			}
			// Lists holding only their empty meaning are left out.
			if allIs(want.IdDelta, 0) {
				want.IdDelta = nil
			}
			if allIs(want.DeviceStartDelayNs, 0) {
				want.DeviceStartDelayNs = nil
			}
			if allIs(want.DeviceDurationNs, 0) {
				want.DeviceDurationNs = nil
			}
			if allIs(want.RepeatOf, 1) {
				want.RepeatOf = nil
			}
			if allIs(want.ExecutionIndex, 0) {
				want.ExecutionIndex = nil
			}
			if allIs(want.SyclTaskId, 0) {
				want.SyclTaskId = nil
			}
			reserve := r.reserve()
			prefix := []byte{0xee}
			b := appendRun(prefix, &r)
			if r.n != 0 {
				t.Errorf("run of %d launches after appendRun, want 0", r.n)
			}
			b = b[len(prefix):]
			if len(b) > reserve {
				t.Errorf("%d bytes, more than the %d reserved", len(b), reserve)
			}
			size, k := binary.Uvarint(b)
			if k <= 0 || int(size) != len(b)-k {
				t.Fatalf("length prefix %d (%d bytes) for %d bytes", size, k, len(b)-k)
			}
			wantBytes, err := proto.Marshal(&pb.Record{Kind: &pb.Record_LaunchRun{LaunchRun: want}})
			if err != nil {
				t.Fatal(err)
			}
			if string(b[k:]) != string(wantBytes) {
				var got pb.Record
				err := proto.Unmarshal(b[k:], &got)
				t.Fatalf("encoded % x\nwant    % x\n(decoded %v, %v; want %v)", b[k:], wantBytes, &got, err, want)
			}
		})
	}
}

func allIs[T comparable](vs []T, v T) bool {
	for _, x := range vs {
		if x != v {
			return false
		}
	}
	return true
}
