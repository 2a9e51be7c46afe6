package stream

// DeltaEncode appends to dst the delta encoding of vals, as StallRows and
// Unattributed store offsets and addresses: the first value, then each
// value minus the one before. vals should ascend.
func DeltaEncode(dst, vals []uint64) []uint64 {
	var prev uint64
	for _, v := range vals {
		dst = append(dst, v-prev)
		prev = v
	}
	return dst
}

// DeltaDecode appends to dst the values whose delta encoding is deltas.
func DeltaDecode(dst, deltas []uint64) []uint64 {
	var v uint64
	for _, d := range deltas {
		v += d
		dst = append(dst, v)
	}
	return dst
}
