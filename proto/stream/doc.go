// Package stream writes zestall files: the framing described in
// proto/zestall.proto around the records of package zestallwire (the
// schema's messages as plain Go types).
//
// A file is an 8-byte prefix ("ZESTALL" and a framing-version byte) followed
// by independent Zstandard frames, each holding length-delimited Record
// messages. The writer ends a frame when it reaches its size, after every
// Counters record and at every [Writer.Flush], and writes each frame whole,
// so a run that is killed leaves a file that is readable up to its last
// written frame, at least up to its last flush.
//
// # Writing
//
// [NewWriter] wraps an io.Writer; [CreateExclusive] opens the output file
// the way the profiler must (never overwriting a file, never following a
// symbolic link). [Writer.Write] and [Writer.WriteLaunch] only encode into
// memory; a goroutine of the Writer's own compresses each sealed frame and
// writes it while the next one fills (two frame buffers, so encoding
// never waits for compression unless a frame fills before the previous one
// is compressed). [Writer.Flush] seals the open frame and waits until
// everything is written; [Writer.StartFlush] does not wait. A Writer is
// owned by one goroutine: it is not safe for concurrent use; Close ends its
// compressor.
//
// [Launch] is a Launch record as a plain value, what the profiler's
// harvester fills in reused storage: WriteLaunch encodes it without a
// pb.Launch, to the same bytes, and [Writer.WriteLaunches] a batch of
// them. Frames that hold only launches may be compressed as Huffman-coded
// literals without match finding, which every Zstandard decoder reads
// (docs/stream-writer.md §2 "Launch frames: literals only").
//
// The Writer gives producers the absolute form of every record and takes
// care of the wire's compact forms itself: it writes Launch records in the
// compact form of zestall.proto (ids and times relative to earlier Launch
// records of the same frame), those that repeat earlier attributes by
// column in LaunchRun records (run.go), stores module content
// once per content hash, and fills Counters.records_written and
// Counters.bytes_written.
//
// # Reading
//
// Package proto/pbstream reads files into package zestallpb's records
// (protobuf's Go types); its Reader expands LaunchRun records and undoes
// the compact forms with [LaunchFrame], this package's reading side of the
// compact Launch form.
// This package holds what both sides share: the framing constants, the
// limits and [FormatError]. It links no protobuf runtime: the Writer takes
// package zestallwire's plain types and encodes them itself (tagenc.go,
// launch.go, sycl.go, wire.go), to the bytes proto.Marshal makes of the
// zestallpb twins, so that libzestall.so, which holds the Writer, pays
// for no protobuf package initialisation at load.
package stream
