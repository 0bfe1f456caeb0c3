package archtest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// outsideDoc matches a citation of the founding specification, a document
// that is not in the repository: the word in capitals, or the word in any
// case followed by a section sign. Built from pieces so this file does not
// match itself.
var outsideDoc = regexp.MustCompile(`\b` + "S" + `PEC\b|(?i:\bspec\s*` + "§" + `)`)

// TestNoOutsideCitations fails when a Go file (tests included) cites the
// founding specification: comments, test names and messages cite the
// documents in the repository instead (docs/behaviour.md and its sections,
// docs/config.md, docs/design.md).
func TestNoOutsideCitations(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for n := 1; sc.Scan(); n++ {
			if m := outsideDoc.FindString(sc.Text()); m != "" {
				t.Errorf("%s:%d cites %q, a document outside the repository: cite docs/behaviour.md (#classes, #rules, #routing, #budgets, #health, #streams, #api, #decision-record) or another docs/ file", path, n, m)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked %d Go files from %s; expected the whole module", files, root)
	}
}

// TestOutsideDocPattern keeps the pattern honest: it catches the citations
// that were in the code, and not the Gemini enum values that merely contain
// the letters.
func TestOutsideDocPattern(t *testing.T) {
	spec := "S" + "PEC"
	for _, s := range []string{
		"// Status defaults (" + spec + " §2): the status",
		"// parses the " + spec + " §4 example",
		`t.Fatalf("the ` + spec + ` example must parse")`,
		"see " + spec + ".md",
		"as the " + strings.ToLower(spec) + " " + "§" + "3 says",
	} {
		if !outsideDoc.MatchString(s) {
			t.Errorf("pattern misses %q", s)
		}
	}
	for _, s := range []string{
		"BLOCK_REASON_UNSPECIFIED",
		"FINISH_REASON_UNSPECIFIED",
		"internal/config/testdata/spec.yaml",
		"func TestTableMatchesSpec(t *testing.T)",
		"// docs/behaviour.md#rules",
	} {
		if outsideDoc.MatchString(s) {
			t.Errorf("pattern matches %q", s)
		}
	}
}
