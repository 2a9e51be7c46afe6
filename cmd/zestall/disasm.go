package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zestall/zestall/format/zebin"
)

// helperName is the C helper that runs IGA for the CLI (cmd/zestall-iga):
// the CLI is pure Go and cannot load libiga64.so.1 itself.
const helperName = "zestall-iga"

// helperEnv names a helper to use instead of the one found next to zestall
// or on PATH.
const helperEnv = "ZESTALL_IGA_HELPER"

// instruction is one disassembled instruction.
type instruction struct {
	off, size int
	text      string
}

// disassembler runs one zestall-iga process for all the kernels a command
// disassembles. When the helper or IGA is missing it says so once on stderr
// and every later call fails fast; the views then show offsets only.
type disassembler struct {
	stderr  io.Writer
	started bool
	broken  error // the helper cannot be used
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	errBuf  bytes.Buffer
	warned  map[string]bool // per-platform decode failures already told
}

func newDisassembler(stderr io.Writer) *disassembler {
	return &disassembler{stderr: stderr, warned: map[string]bool{}}
}

// findHelper returns the helper's path: $ZESTALL_IGA_HELPER when set, else
// zestall-iga next to this executable, else on PATH.
func findHelper() (string, error) {
	if p := os.Getenv(helperEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", helperEnv, p, err)
		}
		return p, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), helperName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if p, err := exec.LookPath(helperName); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s not found next to zestall, on PATH, or in $%s", helperName, helperEnv)
}

func (d *disassembler) start() error {
	d.started = true
	path, err := findHelper()
	if err != nil {
		return err
	}
	d.cmd = exec.Command(path)
	d.cmd.Stderr = &d.errBuf
	if d.in, err = d.cmd.StdinPipe(); err != nil {
		return err
	}
	out, err := d.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	d.out = bufio.NewReader(out)
	return d.cmd.Start()
}

// fail records why the helper is unusable and says it once.
func (d *disassembler) fail(err error) error {
	if d.cmd != nil && d.cmd.Process != nil {
		d.in.Close()
		werr := d.cmd.Wait()
		if msg := strings.TrimSpace(d.errBuf.String()); msg != "" {
			err = errors.New(msg)
		} else if werr != nil {
			err = fmt.Errorf("%v (%v)", err, werr)
		}
		d.cmd = nil
	}
	d.broken = err
	fmt.Fprintf(d.stderr, "zestall: no disassembly, showing instruction offsets only: %v\n", err)
	return err
}

// disassemble returns the instructions of one kernel's ISA (the code only,
// without the padding after the last instruction).
func (d *disassembler) disassemble(plat zebin.IGAPlatform, isa []byte) ([]instruction, error) {
	if d.broken != nil {
		return nil, d.broken
	}
	if !d.started {
		if err := d.start(); err != nil {
			return nil, d.fail(err)
		}
	}
	req := fmt.Sprintf("%#x %d\n", uint32(plat), len(isa))
	if _, err := io.WriteString(d.in, req); err != nil {
		return nil, d.fail(err)
	}
	if _, err := d.in.Write(isa); err != nil {
		return nil, d.fail(err)
	}
	var insts []instruction
	for {
		line, err := d.out.ReadString('\n')
		if err != nil {
			return nil, d.fail(fmt.Errorf("%s ended early: %w", helperName, err))
		}
		line = strings.TrimRight(line, "\n")
		if line == "." {
			return insts, nil
		}
		if msg, ok := strings.CutPrefix(line, "error\t"); ok {
			// Read the terminating "." and report this kernel only.
			if l, err := d.out.ReadString('\n'); err != nil || l != ".\n" {
				return nil, d.fail(fmt.Errorf("%s: malformed response after an error", helperName))
			}
			err := fmt.Errorf("%s (platform %s)", msg, plat)
			if !d.warned[plat.String()] {
				d.warned[plat.String()] = true
				fmt.Fprintf(d.stderr, "zestall: no disassembly for platform %s: %s\n", plat, msg)
			}
			return nil, err
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			return nil, d.fail(fmt.Errorf("%s: malformed line %q", helperName, line))
		}
		off, err1 := strconv.Atoi(f[0])
		size, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			return nil, d.fail(fmt.Errorf("%s: malformed line %q", helperName, line))
		}
		insts = append(insts, instruction{off: off, size: size, text: strings.Join(strings.Fields(f[2]), " ")})
	}
}

// close ends the helper.
func (d *disassembler) close() {
	if d.cmd != nil {
		d.in.Close()
		d.cmd.Wait()
		d.cmd = nil
	}
}
