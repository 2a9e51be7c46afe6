package pbconv

// The helpers of the generated conversions (convert.go).

// convertList converts each message of a list.
func convertList[S, D any](s []S, convert func(S) D) []D {
	if s == nil {
		return nil
	}
	d := make([]D, len(s))
	for i, m := range s {
		d[i] = convert(m)
	}
	return d
}

// convertEnums converts a list of enum values.
func convertEnums[D, S ~int32](s []S) []D {
	if s == nil {
		return nil
	}
	d := make([]D, len(s))
	for i, v := range s {
		d[i] = D(v)
	}
	return d
}
