package proto

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zestall/zestall/internal/gencheck"
	"github.com/zestall/zestall/proto/stream"
)

// protocVersionLine is the one line of generated code that names the protoc
// version. protoc does not otherwise change protoc-gen-go's output, so the
// comparison ignores it and any protoc ≥ 3.21 will do.
var protocVersionLine = regexp.MustCompile(`(?m)^// \tprotoc +v.*\n`)

// TestGeneratedUpToDate regenerates zestallpb from zestall.proto, with
// protoc from PATH and protoc-gen-go built from the version go.mod pins, and
// fails when the checked-in code differs.
func TestGeneratedUpToDate(t *testing.T) {
	protoc := gencheck.Tool(t, "protoc", "Debian: apt-get install protobuf-compiler")
	goTool := gencheck.Tool(t, "go", "the Go toolchain builds protoc-gen-go")
	tmp := t.TempDir()
	plugin := filepath.Join(tmp, "protoc-gen-go")
	build := exec.Command(goTool, "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building protoc-gen-go at go.mod's version: %v\n%s", err, out)
	}
	gen := exec.Command(protoc,
		"--plugin=protoc-gen-go="+plugin,
		"--proto_path=.",
		"--go_out="+tmp,
		"--go_opt=module=github.com/zestall/zestall/proto",
		"zestall.proto")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", gen, err, out)
	}
	want, err := os.ReadFile(filepath.Join(tmp, "zestallpb", "zestall.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("zestallpb", "zestall.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	want = protocVersionLine.ReplaceAll(want, nil)
	got = protocVersionLine.ReplaceAll(got, nil)
	gencheck.Same(t, "proto/zestallpb/zestall.pb.go", got, want, "go generate ./proto") // see proto/README.md
}

// TestWireUpToDate regenerates zestallwire (the schema's messages as plain
// Go types, for the writer side) and pbconv's conversions with
// internal/wiregen, from the checked-in zestallpb, and fails when the
// checked-in files differ. TestGeneratedUpToDate checks zestallpb against
// the schema, so together they tie zestallwire to zestall.proto.
func TestWireUpToDate(t *testing.T) {
	goTool := gencheck.Tool(t, "go", "the Go toolchain runs internal/wiregen")
	tmp := t.TempDir()
	wire, conv := filepath.Join(tmp, "zestall.wire.go"), filepath.Join(tmp, "convert.go")
	gen := exec.Command(goTool, "run", "./internal/wiregen", "-o", wire, "-conv", conv)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", gen, err, out)
	}
	gencheck.SameFiles(t, filepath.Join("zestallwire", "zestall.wire.go"), wire, "go generate ./proto")
	gencheck.SameFiles(t, filepath.Join("pbconv", "convert.go"), conv, "go generate ./proto")
}

// TestSchemaRevision: the revision the writers write is the one the schema
// says it is.
func TestSchemaRevision(t *testing.T) {
	src, err := os.ReadFile("zestall.proto")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("This revision is %d.", stream.SchemaRevision)
	if !strings.Contains(string(src), want) {
		t.Errorf("zestall.proto does not say %q (stream.SchemaRevision)", want)
	}
}
