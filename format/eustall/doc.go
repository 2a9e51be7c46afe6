// Package eustall decodes the raw EU-stall sampling records that Intel's
// Level-Zero driver hands out through zetMetricStreamerReadData for the
// "EuStallSampling" metric group.
//
// Place in the pipeline: the layer (C, inside the profiled process) reads
// the raw bytes from the metric streamer; package collector, in the same
// process, uses this package to turn them into records — an IP, the stall
// counters in the driver's metric order, and the i915-prelim
// subslice/flags word — checked against the driver's own calculation
// ([Decoder.Aggregate]), and to find each record's kernel with [AddrIndex].
// The output stream, proto and the CLI only ever see the decoded,
// attributed samples; the CLI does not use this package.
//
// # Records
//
// A record is 64 bytes, little-endian (docs/eu-stall-sampling.md §3 "The raw
// record").
// The IP field is in 8-byte units: the low 32 bits of the byte address of the
// sampled instruction are ip<<3 (docs/eu-stall-sampling.md §8.2 "Canonical rule
// and worked example"). Its width and the position of the
// 8-bit counters depend on the [Platform]; [Layout] holds those facts, and
// [Layout.MetricSources] maps the metric names the driver reported (in the
// driver's order) to the raw counters that feed them. Nothing in this package
// or its callers needs a hard-coded metric list: a [Decoder] is built from
// the names the driver reported.
//
// Data read from a root device in COMPOSITE mode is framed per sub-device by
// 16-byte headers; [SplitComposite] cuts it into per-sub-device [Chunk]s.
//
// [Decoder.Aggregate] reproduces what the driver's
// zetMetricGroupCalculateMultipleMetricValuesExp returns for the same bytes
// (one report per unique IP, ascending), so that the collector's own decoding
// can be checked against the driver path.
//
// # Errors
//
// Malformed input yields a [DecodeError] carrying the byte offset of the
// problem. Decoding stops at the first error; everything decoded before it is
// still returned.
//
// # Security
//
// The input of this package comes from another process (the profiled
// application, through the layer) or from a file, and must be treated as
// untrusted. Every read is bounds-checked, lengths taken from headers are
// checked against the data actually present before use, and no length from
// the input is used to size an allocation beyond the input's own length. The
// package is fuzzed (FuzzDecode, FuzzSplitComposite, FuzzAddrIndex). A
// malformed input yields an error, never a panic.
package eustall
