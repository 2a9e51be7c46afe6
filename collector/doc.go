// Package collector is zestall's pure-Go core, between the C glue (package
// cgo) and the output stream (package proto/stream): it reads the
// configuration, keeps the registry of modules and kernels the application
// created, and hands records to a single writer goroutine so that
// application threads never wait for I/O.
//
// Pipeline position:
//
//	app ─> L0 loader + tracing layer ─> cgo ─> collector ─> proto/stream ─> file
//
// The package builds with CGO_ENABLED=0; tests drive it directly.
package collector
