package stream

import (
	"errors"
	"fmt"
	"strings"
)

// Magic is the first seven bytes of every zestall file. The eighth byte is
// the framing version.
const Magic = "ZESTALL"

// SchemaRevision is the revision of zestall.proto that the writers of
// this module (the layer, zestall merge) write in Header.format_version
// ("Compatibility and versioning" in the .proto).
const SchemaRevision = 11

// Version is the framing version this package writes. Version 2 came with
// schema revision 8: its LaunchRun records are a kind a reader must not
// skip (a reader that skipped one would resolve the compact Launch records
// after it against the wrong launch, without an error), so the files that
// may hold them carry a version that readers of version 1 refuse.
const Version = 2

// OldestVersion is the oldest framing version this package reads: a
// version 1 file is a version 2 file without LaunchRun records.
const OldestVersion = 1

// PrefixSize is the size of the file prefix: Magic and the version byte.
const PrefixSize = 8

// Limits enforced by the Reader and respected by the Writer.
const (
	// MaxRecordSize is the largest serialized Record, in bytes.
	MaxRecordSize = 256 << 20
	// MaxFrameSize is the largest decompressed frame, in bytes.
	MaxFrameSize = 512 << 20
	// MaxWindowSize is the largest Zstandard window a frame may declare,
	// in bytes. The Writer uses windows of at most 8 MiB.
	MaxWindowSize = 64 << 20
)

// Sentinel errors wrapped by [*FormatError]. Test with errors.Is.
var (
	// ErrTruncated: the input ends inside the prefix or inside a frame.
	// Typical of a run that was killed, or of a file still being written.
	ErrTruncated = errors.New("truncated")
	// ErrCorrupt: the bytes are not a zestall file, or a frame or record
	// is damaged.
	ErrCorrupt = errors.New("corrupt")
	// ErrVersion: the prefix names a framing version this package does
	// not know.
	ErrVersion = errors.New("unsupported framing version")
)

// FormatError is a problem found in a zestall file, located by byte
// offset. It wraps one of ErrTruncated, ErrCorrupt or ErrVersion and, where
// there is one, the error of the layer below (Zstandard, protobuf).
type FormatError struct {
	// Offset is the byte offset in the file of the start of the frame in
	// which the problem lies (0 for the prefix).
	Offset int64
	// Frame is the index of that frame in the file, counting from 0; -1
	// for the prefix. After a damaged stretch was skipped, frames are
	// counted as found (what the stretch held is unknown).
	Frame int
	// Record is the index of the damaged record within the frame,
	// counting from 0; -1 when the frame itself is damaged.
	Record int
	// Msg says what is wrong.
	Msg string
	// Kind is ErrTruncated, ErrCorrupt or ErrVersion.
	Kind error
	// Cause is the underlying error, or nil.
	Cause error
	// Resumed reports that an intact frame follows the damage, at byte
	// offset Offset+Skipped: the next [Reader.Next] returns its records.
	// When false the error is final.
	Resumed bool
	// Skipped is the number of bytes from Offset to the intact frame
	// where reading resumed: the damaged frame and anything up to the
	// next intact one. Records in them are lost. 0 unless Resumed.
	Skipped int64
}

func (e *FormatError) Error() string {
	var b strings.Builder
	b.WriteString("zestall stream: ")
	if e.Frame < 0 {
		b.WriteString("prefix")
	} else {
		fmt.Fprintf(&b, "frame %d at byte offset %d", e.Frame, e.Offset)
		if e.Record >= 0 {
			fmt.Fprintf(&b, ", record %d", e.Record)
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Kind.Error())
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(e.Cause.Error())
	}
	if e.Resumed {
		fmt.Fprintf(&b, " (skipped %d bytes to the next intact frame, at byte offset %d)", e.Skipped, e.Offset+e.Skipped)
	}
	return b.String()
}

// Unwrap returns Kind and, if present, Cause.
func (e *FormatError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// zstdMagic is the magic number of a Zstandard frame (RFC 8878).
const zstdMagic = 0xFD2FB528
