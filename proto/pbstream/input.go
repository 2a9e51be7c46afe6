package pbstream

import (
	"bufio"
	"bytes"
	"io"
)

// input is the Reader's source of bytes: a buffered reader, with bytes put
// back in front of it when the Reader resynchronises after damage (the
// bytes of a damaged frame after its first one may hold the next intact
// frame). It counts the offset of the next byte in the file.
type input struct {
	r    *bufio.Reader
	back []byte // read before r
	off  int64  // file offset of the next byte
}

// zstdMagicBytes is the Zstandard frame magic number as it appears in a
// file (little-endian).
var zstdMagicBytes = []byte{0x28, 0xb5, 0x2f, 0xfd}

// readFull reads exactly len(p) bytes, as io.ReadFull.
func (in *input) readFull(p []byte) (int, error) {
	n := copy(p, in.back)
	in.back = in.back[n:]
	if n < len(p) {
		m, err := io.ReadFull(in.r, p[n:])
		n += m
		if err == io.EOF && n > 0 {
			err = io.ErrUnexpectedEOF
		}
		in.off += int64(n)
		return n, err
	}
	in.off += int64(n)
	return n, nil
}

// atEOF reports whether no byte is left; err is a read error other than
// the end of the input.
func (in *input) atEOF() (bool, error) {
	if len(in.back) > 0 {
		return false, nil
	}
	_, err := in.r.Peek(1)
	if err == io.EOF {
		return true, nil
	}
	return false, err
}

// discard skips n bytes; it returns how many it skipped.
func (in *input) discard(n int64) (int64, error) {
	k := min(n, int64(len(in.back)))
	in.back = in.back[k:]
	m, err := io.CopyN(io.Discard, in.r, n-k)
	in.off += k + m
	return k + m, err
}

// unread puts b back in front of the input; off is b's offset in the file.
// b is copied.
func (in *input) unread(b []byte, off int64) {
	nb := make([]byte, 0, len(b)+len(in.back))
	in.back = append(append(nb, b...), in.back...)
	in.off = off
}

// skipToMagic skips to the next Zstandard frame magic number. It returns
// io.EOF when there is none before the end of the input, having consumed
// everything; memory stays bounded by one read chunk.
func (in *input) skipToMagic() error {
	const keep = 3 // a magic number may straddle two chunks
	var chunk [32 << 10]byte
	for {
		if i := bytes.Index(in.back, zstdMagicBytes); i >= 0 {
			in.back = in.back[i:]
			in.off += int64(i)
			return nil
		}
		if drop := len(in.back) - keep; drop > 0 {
			in.back = in.back[drop:]
			in.off += int64(drop)
		}
		n, err := in.r.Read(chunk[:])
		if n > 0 {
			in.back = append(in.back[:len(in.back):len(in.back)], chunk[:n]...)
			continue
		}
		if err == io.EOF {
			in.off += int64(len(in.back))
			in.back = nil
			return io.EOF
		}
		if err != nil {
			return err
		}
	}
}
