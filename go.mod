module github.com/zestall/zestall

go 1.26.0

require (
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.3
	golang.org/x/sys v0.49.0
	google.golang.org/protobuf v1.36.12
)

require github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
