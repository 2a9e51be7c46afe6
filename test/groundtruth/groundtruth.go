// Package groundtruth reads what the simulated Level-Zero device really
// did (ZESIM_GROUND_TRUTH=<file>, JSON lines; schema in test/sim/README.md)
// so that end-to-end tests can compare zestall's output with it.
package groundtruth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Kernel is a {"type":"kernel"} line: a kernel ISA created or destroyed.
type Kernel struct {
	Event    string `json:"event"` // "create" or "destroy"
	Kernel   uint64 `json:"kernel"`
	Name     string `json:"name"`
	Base     uint64 `json:"base"`
	Size     uint64 `json:"size"`
	CodeSize uint64 `json:"code_size"`
	Module   uint64 `json:"module"`
	Device   int    `json:"device"`
	TimeNs   uint64 `json:"time_ns"`
}

// KernelObject is a {"type":"kernel_object"} line: a zeKernelCreate of
// the code Kernel (a Kernel line's id).
type KernelObject struct {
	Event  string `json:"event"`
	Kernel uint64 `json:"kernel"`
	Name   string `json:"name"`
	Base   uint64 `json:"base"`
	TimeNs uint64 `json:"time_ns"`
}

// Launch is a {"type":"launch"} line: one executed kernel launch.
type Launch struct {
	Launch     uint64    `json:"launch"`
	Kernel     uint64    `json:"kernel"`
	Name       string    `json:"name"`
	Base       uint64    `json:"base"`
	Device     int       `json:"device"`
	Subdevice  int       `json:"subdevice"`
	Engine     string    `json:"engine"`
	CmdList    uint64    `json:"cmdlist"`
	Immediate  bool      `json:"immediate"`
	Groups     [3]uint32 `json:"groups"`
	GroupSize  [3]uint32 `json:"group_size"`
	StartNs    uint64    `json:"start_ns"`
	EndNs      uint64    `json:"end_ns"`
	StartTicks uint64    `json:"start_ticks"`
	EndTicks   uint64    `json:"end_ticks"`
	State      State     `json:"state"`
}

// State is the kernel state a launch ran with, as the device captured it
// at the append.
type State struct {
	NArgs    uint32    `json:"nargs"`
	Args     [8]uint64 `json:"args"` // first 8 bytes of each value (pointers, scalars); SLM arguments: the size
	SLM      uint32    `json:"slm"`  // static + dynamic SLM bytes
	Indirect uint32    `json:"indirect"`
	Cache    uint32    `json:"cache"`
	Offset   [3]uint32 `json:"offset"`
}

// Sample is a {"type":"sample"} line: one EU stall record the device
// produced (Dropped: it did not fit into its Xe-core buffer; Undelivered:
// see the field).
type Sample struct {
	Launch    uint64   `json:"launch"`
	Kernel    uint64   `json:"kernel"`
	Device    int      `json:"device"`
	Subdevice int      `json:"subdevice"`
	XeCore    int      `json:"xecore"`
	IP        uint64   `json:"ip"`
	Offset    uint64   `json:"offset"`
	Counters  []uint64 `json:"counters"`
	TimeNs    uint64   `json:"t_ns"`
	Dropped   bool     `json:"dropped"`
	// Undelivered: taken, but still invisible to reads when the stream
	// was closed (ZESIM_EUSS_POLL_NS), so no read ever returned it.
	Undelivered bool `json:"undelivered"`
	// Pid is the process whose kernel was sampled; Foreign is true when
	// that is not the process that wrote this file (a stream samples every
	// process on its tile, ZESIM_MACHINE). Launch and Kernel are then ids
	// of that process's ground truth.
	Pid     int  `json:"pid"`
	Foreign bool `json:"foreign"`
}

// Device is a {"type":"device"} line: where a device of the process is
// on the simulated node (ZESIM_CARDS, ZE_AFFINITY_MASK). Tile and NodeTile
// are absent (-1) for a device of several tiles.
type Device struct {
	Device    int `json:"device"`
	Subdevice int `json:"subdevice"`
	Card      int `json:"card"`
	Tile      int `json:"tile"`
	NodeTile  int `json:"node_tile"`
	Tiles     int `json:"tiles"`
}

// Truth is everything a ground-truth file holds.
type Truth struct {
	Config   map[string]any
	Kernels  []Kernel
	Objects  []KernelObject
	Launches []Launch
	Samples  []Sample
	Devices  []Device
	Other    int // lines of other types
}

// Read parses a ground-truth file.
func Read(path string) (*Truth, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f)
}

// Parse parses ground-truth JSON lines.
func Parse(r io.Reader) (*Truth, error) {
	t := &Truth{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return t, fmt.Errorf("ground truth line %d: %v", line, err)
		}
		var err error
		switch head.Type {
		case "config":
			err = json.Unmarshal(b, &t.Config)
		case "kernel":
			var k Kernel
			err = json.Unmarshal(b, &k)
			t.Kernels = append(t.Kernels, k)
		case "kernel_object":
			var o KernelObject
			err = json.Unmarshal(b, &o)
			t.Objects = append(t.Objects, o)
		case "launch":
			var l Launch
			err = json.Unmarshal(b, &l)
			t.Launches = append(t.Launches, l)
		case "sample":
			var s Sample
			err = json.Unmarshal(b, &s)
			t.Samples = append(t.Samples, s)
		case "device":
			d := Device{Tile: -1, NodeTile: -1}
			err = json.Unmarshal(b, &d)
			t.Devices = append(t.Devices, d)
		default:
			t.Other++
		}
		if err != nil {
			return t, fmt.Errorf("ground truth line %d: %v", line, err)
		}
	}
	return t, sc.Err()
}
