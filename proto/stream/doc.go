// Package stream writes and reads zestall files: the framing described in
// proto/zestall.proto around the records of package zestallpb.
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
// pb.Launch, to the same bytes.
//
// The Writer gives producers the absolute form of every record and takes
// care of the wire's compact forms itself: it writes Launch records in the
// compact form of zestall.proto (ids and times relative to earlier Launch
// records of the same frame), stores module content
// once per content hash, and fills Counters.records_written and
// Counters.bytes_written.
//
// # Reading
//
// [NewReader] streams records one at a time with [Reader.Next]; [ReadAll]
// collects them. The Reader undoes the compact forms again: every Launch it
// returns is in absolute form. Module records that share content keep
// content_module_id; resolving it is left to the caller.
//
// A file that ends inside a frame, or whose frame does not decode, yields
// every record of the frames before the damaged one, then a [*FormatError]
// that gives the byte offset of the damaged frame and wraps [ErrTruncated] or
// [ErrCorrupt], so that errors.Is tells the two apart. When an intact frame
// follows the damage, the error says so (Resumed, and how many bytes were
// Skipped) and the next [Reader.Next] goes on with that frame: one corrupt
// frame does not hide the frames after it. A file cut exactly at a frame
// boundary cannot be told from a complete one by its framing; the absence
// of a final Counters record says that the run did not end cleanly.
//
// # Security
//
// The Reader is meant to read files from anywhere, including hostile ones.
// It does not panic on malformed input, and it bounds its memory while
// decompressing, not after: a frame is decompressed into memory only up to
// 8 MiB; a larger one is first decompressed without being kept, to check
// that it stays within [MaxFrameSize] bytes and matches its checksum, then
// decompressed again as its records are read. A record is at most
// [MaxRecordSize] bytes and no more than its frame holds, and a frame's
// Zstandard window is at most [MaxWindowSize] bytes; anything larger is
// reported as corrupt before it is allocated. A Reader therefore holds at
// most about 8 MiB + MaxWindowSize + the largest record + the compressed
// frame (which is input, not amplified), however large the file: a 33 KB
// file decompressing to 1 GiB is refused with about 20 MiB allocated.
// Decompression costs CPU in proportion to the decompressed size, so a
// small hostile file can still cost up to MaxFrameSize bytes of work per
// frame; looking for the next intact frame after damage costs one attempt
// per Zstandard magic number found in the damaged bytes.
//
// The Reader checks the framing, the Zstandard checksum of each frame, the
// protobuf encoding, and the column shapes of StallRows and Unattributed
// records. It does not check what records mean: ids that refer to no
// record, offsets outside a kernel, times out of order or inconsistent
// counters all reach the caller, who must treat them as untrusted.
package stream
