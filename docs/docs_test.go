package docs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// A cited document: its sections (number → title, markup removed) and the
// hazards it names (P1, P2, …).
type document struct {
	sections map[string]string
	hazards  map[string]bool
}

var (
	headingRE = regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? (.+?)\s*$`)
	// A hazard is named by a bold item "**P8 — …**" or a table row "| P8 |".
	hazardRE = regexp.MustCompile(`(?m)^(?:\*\*(P\d+) —|\| (P\d+) \|)`)
)

// normTitle drops the markup a citation cannot or need not repeat: code
// spans, quotes, evidence markers, extra blanks.
func normTitle(s string) string {
	s = strings.NewReplacer("`", "", `"`, "", `\`, "").Replace(s)
	s = regexp.MustCompile(`(\s*\[[A-Z/]+\])+$`).ReplaceAllString(s, "")
	return strings.Join(strings.Fields(s), " ")
}

func parseDocument(text string) (*document, error) {
	d := &document{sections: map[string]string{}, hazards: map[string]bool{}}
	for _, m := range headingRE.FindAllStringSubmatch(text, -1) {
		if _, dup := d.sections[m[1]]; dup {
			return nil, fmt.Errorf("section %s appears twice", m[1])
		}
		d.sections[m[1]] = normTitle(m[2])
	}
	for _, m := range hazardRE.FindAllStringSubmatch(text, -1) {
		d.hazards[m[1]+m[2]] = true
	}
	return d, nil
}

// flatText is a file's text with comment leaders removed and lines joined by
// one blank, so that a citation wrapped over several comment lines reads as
// one; lineStart maps offsets back to line numbers.
type flatText struct {
	s         string
	lineStart []int
}

var leaderRE = regexp.MustCompile(`^\s*(?://+|/\*+|\*+/?|#+|--|>)?\s*`)

func flatten(text string) flatText {
	var b strings.Builder
	var f flatText
	for _, line := range strings.Split(text, "\n") {
		f.lineStart = append(f.lineStart, b.Len())
		line = leaderRE.ReplaceAllString(line, "")
		line = strings.TrimSuffix(strings.TrimRight(line, " \t"), "*/") // boxed comments
		line = strings.ReplaceAll(line, `\"`, `"`)                      // citations inside string literals
		b.WriteString(line)
		b.WriteByte(' ')
	}
	f.s = b.String()
	return f
}

func (f flatText) line(off int) int {
	return sort.Search(len(f.lineStart), func(i int) bool { return f.lineStart[i] > off })
}

var (
	// References to files outside the repository, and the old citation form.
	outsideRE = []*regexp.Regexp{
		regexp.MustCompile(`\.\./shared\b`),
		regexp.MustCompile(`/work/`),
		regexp.MustCompile(`\bshared/reference\b`),
		regexp.MustCompile(`(?i)\breference:?\s+(?:[\w.-]+\.md,?\s+)?§`),
	}
	docMentionRE = regexp.MustCompile(`\bdocs/([A-Za-z0-9_.-]+\.md)`)
	sectionRE    = regexp.MustCompile(`§(\d+(?:\.\d+)?)(?:\s*"([^"]*)")?`)
	// Hazards cited after a section: `§10 "Hazards", P2, P3 and P16`.
	hazardListRE = regexp.MustCompile(`^,?\s*(P\d+(?:(?:,\s*|,?\s+and\s+)P\d+)*)`)
	bareHazardRE = regexp.MustCompile(`\bP(?:[1-9]|1[0-6])\b`)
	hazardNameRE = regexp.MustCompile(`P\d+`)
)

// lookBack is how far before a "§n" the document it belongs to may be named:
// enough for a list of sections with titles, not enough to reach an
// unrelated citation paragraphs away.
const lookBack = 300

// checkText returns the citation problems of one file. self is the file's
// name when it is one of the documents (a bare §n there refers to itself),
// else "".
func checkText(text string, docs map[string]*document, self string) []string {
	var problems []string
	f := flatten(text)
	report := func(off int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: %s", f.line(off), fmt.Sprintf(format, args...)))
	}
	for _, re := range outsideRE {
		for _, loc := range re.FindAllStringIndex(f.s, -1) {
			report(loc[0], "refers outside the repository or uses the old citation form: %q", f.s[loc[0]:loc[1]])
		}
	}
	mentions := docMentionRE.FindAllStringSubmatchIndex(f.s, -1)
	for _, m := range mentions {
		if name := f.s[m[2]:m[3]]; docs[name] == nil {
			report(m[0], "cites docs/%s, which does not exist", name)
		}
	}
	// The document a "§" at off belongs to: the nearest docs/X.md before it
	// (within lookBack); inside a document, one named right before it, else
	// the document itself.
	docAt := func(off int) string {
		name := ""
		for _, m := range mentions {
			if m[1] > off {
				break
			}
			if self != "" {
				if strings.TrimSpace(f.s[m[1]:off]) == "" {
					name = f.s[m[2]:m[3]]
				}
			} else if off-m[1] <= lookBack {
				name = f.s[m[2]:m[3]]
			}
		}
		if name == "" {
			name = self
		}
		return name
	}
	for _, m := range sectionRE.FindAllStringSubmatchIndex(f.s, -1) {
		num := f.s[m[2]:m[3]]
		name := docAt(m[0])
		if name == "" {
			report(m[0], "§%s cites no document: write docs/<file>.md §%s \"<title>\"", num, num)
			continue
		}
		d := docs[name]
		if d == nil {
			continue // reported above
		}
		title, ok := d.sections[num]
		if !ok {
			report(m[0], "docs/%s has no section %s", name, num)
			continue
		}
		if m[4] >= 0 {
			cited := normTitle(f.s[m[4]:m[5]])
			if cited == "" || (cited != title && !strings.HasPrefix(title, cited+" ")) {
				report(m[0], "docs/%s §%s is titled %q, not %q", name, num, title, cited)
			}
		}
		if h := hazardListRE.FindStringSubmatch(f.s[m[1]:]); h != nil && m[4] >= 0 {
			for _, p := range hazardNameRE.FindAllString(h[1], -1) {
				if !d.hazards[p] {
					report(m[0], "docs/%s names no hazard %s", name, p)
				}
			}
		}
	}
	if self == "" {
		for _, loc := range bareHazardRE.FindAllStringIndex(f.s, -1) {
			start := max(0, loc[0]-lookBack)
			if !strings.Contains(f.s[start:loc[0]], "docs/level-zero-loader.md") {
				report(loc[0], "hazard %s cites no document: write docs/level-zero-loader.md §10 \"Hazards\", %s",
					f.s[loc[0]:loc[1]], f.s[loc[0]:loc[1]])
			}
		}
	}
	return problems
}

// repoRoot is the repository's top directory (this package lives in docs/).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found above docs/: %v", err)
	}
	return root
}

func loadDocuments(t *testing.T, root string) map[string]*document {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]*document{}
	for _, p := range names {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := parseDocument(string(text))
		if err != nil {
			t.Fatalf("docs/%s: %v", filepath.Base(p), err)
		}
		docs[filepath.Base(p)] = d
	}
	return docs
}

var textExt = map[string]bool{
	".go": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".cl": true,
	".sh": true, ".py": true, ".md": true, ".txt": true, ".proto": true,
	".cmake": true, ".yml": true, ".yaml": true, ".toml": true,
}

// textSources lists the repository's text sources, relative to root: files
// with a source or documentation extension and extension-less scripts
// (#!). Build directories, VCS data and this file (which spells the
// forbidden patterns) are left out.
func textSources(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			base := e.Name()
			if rel != "." && (base == ".git" || base == "__pycache__" || base == "node_modules" ||
				(!strings.Contains(rel, "/") && (base == "build" || strings.HasPrefix(base, "build-")))) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "CMakeCache.txt")); err == nil {
				return filepath.SkipDir // a build tree wherever it is
			}
			return nil
		}
		if rel == "docs/docs_test.go" || !e.Type().IsRegular() {
			return nil
		}
		ext := filepath.Ext(e.Name())
		if textExt[ext] || e.Name() == "CMakeLists.txt" {
			files = append(files, rel)
			return nil
		}
		if ext == "" {
			head := make([]byte, 2)
			if fh, err := os.Open(p); err == nil {
				n, _ := fh.Read(head)
				fh.Close()
				if n == 2 && string(head) == "#!" {
					files = append(files, rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRepositoryCitations is the rule of docs/README.md: no text source
// refers outside the repository, and every "§n" and hazard "Pn" cites a
// document, section, title and hazard that exist in docs/.
func TestRepositoryCitations(t *testing.T) {
	root := repoRoot(t)
	docs := loadDocuments(t, root)
	for _, need := range []string{"level-zero-loader.md", "eu-stall-sampling.md"} {
		if docs[need] == nil {
			t.Fatalf("docs/%s is missing", need)
		}
	}
	files := textSources(t, root)
	if len(files) < 50 {
		t.Fatalf("found only %d text sources under %s; the walk is broken", len(files), root)
	}
	citations := 0
	for _, rel := range files {
		text, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(text, 0) >= 0 {
			continue // binary
		}
		self := ""
		if strings.HasPrefix(rel, "docs/") && strings.Count(rel, "/") == 1 && rel != "docs/README.md" && strings.HasSuffix(rel, ".md") {
			self = filepath.Base(rel)
		} else {
			citations += strings.Count(string(text), "§")
		}
		for _, p := range checkText(string(text), docs, self) {
			t.Errorf("%s: %s", rel, p)
		}
	}
	if citations == 0 {
		t.Errorf("no citation found outside docs/ in %d files; the walk is broken", len(files))
	}
	t.Logf("%d text sources, %d section citations outside docs/", len(files), citations)
}

// TestDocuments checks the documents themselves: unique section numbers, the
// hazards P1–P17 of the loader document, and the sections the code cites most.
func TestDocuments(t *testing.T) {
	docs := loadDocuments(t, repoRoot(t))
	for i := 1; i <= 17; i++ {
		if p := fmt.Sprintf("P%d", i); !docs["level-zero-loader.md"].hazards[p] {
			t.Errorf("docs/level-zero-loader.md: hazard %s is not a named item", p)
		}
	}
	for _, c := range []struct{ doc, num, title string }{
		{"level-zero-loader.md", "10", "Hazards P1–P17"},
		{"level-zero-loader.md", "5.4", "Prologues can replace arguments"},
		{"level-zero-loader.md", "8.1", "Per zeCommandListAppendLaunchKernel call"},
		{"eu-stall-sampling.md", "3.2", "Bit layout"},
		{"eu-stall-sampling.md", "3.4", "Decoding rule"},
		{"eu-stall-sampling.md", "8.2", "Canonical rule and worked example"},
		{"eu-stall-sampling.md", "9.3", "zetModuleGetDebugInfo returns a linked debug zebin"},
	} {
		if got := docs[c.doc].sections[c.num]; got != c.title {
			t.Errorf("docs/%s §%s: title %q, want %q", c.doc, c.num, got, c.title)
		}
	}
}

// testDocs is a small document set for the checker's own tests.
func testDocs(t *testing.T) map[string]*document {
	t.Helper()
	loader, err := parseDocument("# L\n## 5. The tracing layer\n### 5.4 Prologues can replace arguments [S][M]\n" +
		"## 10. Hazards P1–P16\n**P2 — failed.** x\n**P8 — fork.** y\n| P16 | silent |\n")
	if err != nil {
		t.Fatal(err)
	}
	eu, err := parseDocument("# E\n## 3. The raw record\n### 3.2 Bit layout [V]\n### 5.3 `samplingPeriod` (nanoseconds)\n" +
		"### 9.3 `zetModuleGetDebugInfo` returns a linked \"debug zebin\"\n")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*document{"level-zero-loader.md": loader, "eu-stall-sampling.md": eu}
}

func TestCheckText(t *testing.T) {
	docs := testDocs(t)
	for _, c := range []struct {
		name, text, self string
		want             []string // substrings of the expected problems, in order
	}{
		{"full citation", `// see docs/eu-stall-sampling.md §3.2 "Bit layout".`, "", nil},
		{"number only", `// docs/eu-stall-sampling.md §3.2`, "", nil},
		{"list of sections", `/* docs/eu-stall-sampling.md §3 "The raw record", §3.2 "Bit layout" */`, "", nil},
		{"title with markup", `// docs/eu-stall-sampling.md §9.3 "zetModuleGetDebugInfo returns a linked debug zebin"`, "", nil},
		{"shortened title", `// docs/eu-stall-sampling.md §5.3 "samplingPeriod"`, "", nil},
		{"title wrapped over comment lines", "// (docs/eu-stall-sampling.md §3.2 \"Bit\n// layout\")", "", nil},
		{"title wrapped in a block comment", "/* docs/level-zero-loader.md §5.4 \"Prologues can\n * replace arguments\" */", "", nil},
		{"title wrapped in a boxed comment", "/* docs/level-zero-loader.md §5.4 \"Prologues can */\n/* replace arguments\")      */", "", nil},
		{"string literal", `t.Fatalf("x (docs/level-zero-loader.md §10 \"Hazards\", P8)")`, "", nil},
		{"hazards", `# docs/level-zero-loader.md §10 "Hazards", P2, P8 and P16`, "", nil},
		{"hazard continued on the next line", "// (docs/level-zero-loader.md §10 \"Hazards\",\n// P2)", "", nil},
		{"inside a document", "see §3.2 and docs/level-zero-loader.md §5.4", "eu-stall-sampling.md", nil},
		{"old form", `// (reference §3.2)`, "", []string{"old citation form", "cites no document"}},
		{"old form with file", `// reference eu-stall-sampling.md §3`, "", []string{"old citation form", "cites no document"}},
		{"outside path", "// spec: ../../shared/reference/eu-stall-sampling.md", "", []string{"../shared", "shared/reference"}},
		{"absolute path", `# see /work/shared/x.md`, "", []string{"/work/"}},
		{"bare section", `/* as required (§3.2) */`, "", []string{"§3.2 cites no document"}},
		{"bare hazard", `// the child hangs (P8)`, "", []string{"hazard P8 cites no document"}},
		{"unknown document", `// docs/xpti.md §2`, "", []string{"docs/xpti.md, which does not exist"}},
		{"unknown section", `// docs/eu-stall-sampling.md §3.9 "Bit layout"`, "", []string{"has no section 3.9"}},
		{"wrong title", `// docs/eu-stall-sampling.md §3.2 "Decoding rule"`, "", []string{`titled "Bit layout", not "Decoding rule"`}},
		{"title is not a word prefix", `// docs/eu-stall-sampling.md §3.2 "Bit lay"`, "", []string{"titled"}},
		{"unknown hazard", `// docs/level-zero-loader.md §10 "Hazards", P2 and P17`, "", []string{"no hazard P17"}},
		{"bare section inside a document after a cross reference", "docs/level-zero-loader.md §5.4 then §3.9", "eu-stall-sampling.md", []string{"eu-stall-sampling.md has no section 3.9"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkText(c.text, docs, c.self)
			if len(got) != len(c.want) {
				t.Fatalf("problems %q, want %d matching %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestParseDocument(t *testing.T) {
	docs := testDocs(t)
	for _, c := range []struct{ doc, num, title string }{
		{"level-zero-loader.md", "5", "The tracing layer"},
		{"level-zero-loader.md", "5.4", "Prologues can replace arguments"},
		{"level-zero-loader.md", "10", "Hazards P1–P16"},
		{"eu-stall-sampling.md", "5.3", "samplingPeriod (nanoseconds)"},
		{"eu-stall-sampling.md", "9.3", "zetModuleGetDebugInfo returns a linked debug zebin"},
	} {
		if got := docs[c.doc].sections[c.num]; got != c.title {
			t.Errorf("%s §%s = %q, want %q", c.doc, c.num, got, c.title)
		}
	}
	if h := docs["level-zero-loader.md"].hazards; !h["P2"] || !h["P8"] || !h["P16"] || h["P3"] {
		t.Errorf("hazards = %v, want P2, P8, P16", h)
	}
	if _, err := parseDocument("## 1. A\n## 1. B\n"); err == nil {
		t.Error("a duplicate section number was accepted")
	}
}
