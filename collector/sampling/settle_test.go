package sampling

import (
	"slices"
	"testing"
	"time"
)

// TestAddSettle: settling reads stay ascending; completions whose settling
// times lie within the merge interval of a read's first share that read, at
// the latest of them.
func TestAddSettle(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * float64(time.Millisecond))) }
	tests := []struct {
		name string
		add  []float64
		want []float64
	}{
		{"one", []float64{5}, []float64{5}},
		{"apart", []float64{5, 10, 30}, []float64{5, 10, 30}},
		{"burst merged into the latest", []float64{5, 5.2, 5.4, 5.6, 5.8}, []float64{5.8}},
		{"a steady stream: one read per interval", []float64{0, 0.4, 0.8, 1.2, 1.6, 2.0, 2.4}, []float64{0.8, 2.0, 2.4}},
		{"earlier than a read's first", []float64{5, 4.5}, []float64{4.5, 5}},
		{"out of order", []float64{10, 3}, []float64{3, 10}},
	}
	for _, tt := range tests {
		var due []settleRead
		for _, ms := range tt.add {
			due = addSettle(due, at(ms), time.Millisecond)
		}
		var want []time.Time
		for _, ms := range tt.want {
			want = append(want, at(ms))
		}
		if !slices.EqualFunc(due, want, func(r settleRead, w time.Time) bool { return r.at.Equal(w) }) {
			t.Errorf("%s: %v, want %v", tt.name, due, want)
		}
	}
}

// TestSameSets: per-set values compare equal when every set holds the
// same values; a missing set equals an empty one.
func TestSameSets(t *testing.T) {
	for _, tc := range []struct {
		a, b [][]uint64
		want bool
	}{
		{nil, nil, true},
		{[][]uint64{{1, 2}}, [][]uint64{{1, 2}}, true},
		{[][]uint64{{1, 2}}, [][]uint64{{1, 3}}, false},
		{[][]uint64{{1, 2}}, [][]uint64{{1, 2, 3}}, false},
		{[][]uint64{{1}, {}}, [][]uint64{{1}}, true},
		{[][]uint64{{1}, {2}}, [][]uint64{{1}}, false},
	} {
		if got := sameSets(tc.a, tc.b); got != tc.want || sameSets(tc.b, tc.a) != tc.want {
			t.Errorf("sameSets(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
