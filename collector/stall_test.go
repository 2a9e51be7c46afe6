package collector

import (
	"slices"
	"testing"
	"time"
)

// TestAddSettle: settling reads stay ascending; completions closer than
// settleMerge share the later one's read.
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
		{"burst merged into the latest", []float64{5, 5.3, 5.6, 5.9, 6.2}, []float64{6.2}},
		{"earlier within the merge distance", []float64{5, 4.5}, []float64{5}},
		{"earlier, out of order", []float64{10, 3}, []float64{3, 10}},
	}
	for _, tt := range tests {
		var due []time.Time
		for _, ms := range tt.add {
			due = addSettle(due, at(ms))
		}
		var want []time.Time
		for _, ms := range tt.want {
			want = append(want, at(ms))
		}
		if !slices.EqualFunc(due, want, time.Time.Equal) {
			t.Errorf("%s: %v, want %v", tt.name, due, want)
		}
	}
}
