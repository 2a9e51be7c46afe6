// Package pbstream reads zestall files into the records of package
// zestallpb (the Go code protoc-gen-go generates from zestall.proto), for
// offline tools: cmd/zestall and the tests. The framing and the Writer are
// package proto/stream's, which works on package zestallwire's plain types
// so that libzestall.so links no protobuf runtime; this package holds the
// Reader, which decodes with proto.Unmarshal, and [Write], which gives a
// zestallpb record to a stream.Writer (through package pbconv).
//
// # Reading
//
// [NewReader] streams records one at a time with [Reader.Next]; [ReadAll]
// collects them. The Reader undoes the compact forms again: every Launch it
// returns is in absolute form. Module records that share content keep
// content_module_id; resolving it is left to the caller.
//
// A file that ends inside a frame, or whose frame does not decode, yields
// every record of the frames before the damaged one, then a
// [*stream.FormatError] that gives the byte offset of the damaged frame and
// wraps [stream.ErrTruncated] or [stream.ErrCorrupt], so that errors.Is
// tells the two apart. When an intact frame follows the damage, the error
// says so (Resumed, and how many bytes were Skipped) and the next
// [Reader.Next] goes on with that frame: one corrupt frame does not hide
// the frames after it. A file cut exactly at a frame boundary cannot be
// told from a complete one by its framing; the absence of a final Counters
// record says that the run did not end cleanly.
//
// # Writing zestallpb records
//
// [Write] converts a record with pbconv.RecordToWire and gives it to a
// stream.Writer (zestall merge, tests).
//
// # Security
//
// The Reader is meant to read files from anywhere, including hostile ones.
// It does not panic on malformed input, and it bounds its memory while
// decompressing, not after: a frame is decompressed into memory only up to
// 8 MiB; a larger one is first decompressed without being kept, to check
// that it stays within [stream.MaxFrameSize] bytes and matches its
// checksum, then decompressed again as its records are read. A record is at
// most [stream.MaxRecordSize] bytes and no more than its frame holds, and a
// frame's Zstandard window is at most [stream.MaxWindowSize] bytes; anything
// larger is reported as corrupt before it is allocated. A Reader therefore
// holds at most about 8 MiB + MaxWindowSize + the largest record + the
// compressed frame (which is input, not amplified), however large the file:
// a 33 KB file decompressing to 1 GiB is refused with about 20 MiB
// allocated. Decompression costs CPU in proportion to the decompressed
// size, so a small hostile file can still cost up to MaxFrameSize bytes of
// work per frame; looking for the next intact frame after damage costs one
// attempt per Zstandard magic number found in the damaged bytes.
//
// The Reader checks the framing, the Zstandard checksum of each frame, the
// protobuf encoding, and the column shapes of StallRows and Unattributed
// records. It does not check what records mean: ids that refer to no
// record, offsets outside a kernel, times out of order or inconsistent
// counters all reach the caller, who must treat them as untrusted.
package pbstream
