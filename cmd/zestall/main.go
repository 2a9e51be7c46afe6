// Command zestall reads the files libzestall.so writes.
//
//	zestall dump FILE                 every record as one JSON object per line
//	zestall report FILE...            run summary, collection windows, kernels,
//	                                  stall reasons, hottest instructions;
//	                                  several runs: per-run table (ranks.go)
//	zestall annotate FILE...          per-instruction or per-source-line samples
//	zestall pprof FILE... -o OUT.pb.gz   EU stall samples as a pprof profile
//	zestall trace FILE... -o OUT.json    launches as Chrome/Perfetto trace events
//	                                     (--format=perfetto: protobuf, perfetto.go)
//	zestall merge FILE... -o OUT.zst     several runs as one file
//	zestall report --json FILE...        the report as JSON (reportjson.go)
//	zestall report --launches FILE...    per-launch table (launches.go)
//	zestall diff OLD NEW                 two runs compared (diff.go)
//	zestall html FILE... -o PAGE.html    a self-contained web page (html.go)
//
// Every view reads one in-memory model (model.go) built from the stream;
// several FILEs are merged into it as zestall merge does (merge.go).
// Disassembly comes from the C helper zestall-iga (cmd/zestall-iga), which
// loads IGA at run time: the CLI itself is pure Go (CGO_ENABLED=0).
//
// Exit codes follow pprof: 0 success, 1 a file could not be read completely
// (everything readable was still printed: reading goes on past a damaged
// stretch at the next intact frame), holds no record, or an output could
// not be written, 2 usage error. Outputs appear only complete and never
// replace a file (output.go). Reading a large file shows progress on
// stderr.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `usage: zestall <command> [arguments]

commands:
  dump FILE     print every record of FILE as one JSON object per line
  report FILE...
                print a run summary, collection windows, kernels, stall
                reasons and the hottest instructions (disassembly, source
                line); for several runs (MPI ranks) the per-run table and
                the load imbalance; --json for scripts
  report --launches [--kernel NAME | --limit N] FILE...
                print single launches: device time against the kernel's
                median, shape, stall samples and top reasons
  annotate FILE... [--kernel NAME | --launch ID] [--source | --asm]
                print each kernel's (or one launch's) samples per
                instruction or source line
  pprof FILE... -o OUT.pb.gz
                write the EU stall samples as a pprof profile
  trace FILE... -o OUT.json  [--format=perfetto] [--max-launches N]
                write the launches as Chrome/Perfetto trace-event JSON,
                or as Perfetto's protobuf trace
  merge FILE... -o OUT.zst
                merge several runs (processes, ranks) into one file
  html FILE... -o PAGE.html
                write one self-contained web page: timeline, kernels,
                per-instruction and per-line stall reasons, launches
  diff OLD NEW  compare two runs: per kernel device time, launches, stall
                reasons, and the instructions whose samples changed most
  version, --version
                print the version
  help          print this help

Run "zestall <command> --help" for a command's options. Flags may follow
the FILEs; FILE "-" is standard input (as the only FILE). Outputs (-o)
appear only complete and never replace an existing file.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "dump":
		err = cmdDump(rest, stdout, stderr)
	case "report":
		err = cmdReport(rest, stdout, stderr)
	case "pprof":
		err = cmdPprof(rest, stdout, stderr)
	case "annotate":
		err = cmdAnnotate(rest, stdout, stderr)
	case "merge":
		err = cmdMerge(rest, stdout, stderr)
	case "trace":
		err = cmdTrace(rest, stdout, stderr)
	case "diff":
		err = cmdDiff(rest, stdout, stderr)
	case "html":
		err = cmdHTML(rest, stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "zestall", version)
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "zestall: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "zestall:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "zestall:", err)
		return 1
	}
}

const version = "0.1.0-dev"

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

var errHelp = errors.New("help shown")
