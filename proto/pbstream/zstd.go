package pbstream

// Zstandard frame constants (RFC 8878).
const (
	zstdMagic          = 0xFD2FB528
	skippableMagicMask = 0xFFFFFFF0
	skippableMagic     = 0x184D2A50
	maxBlockSize       = 128 << 10
)
