package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docBlock is one fenced block of a Markdown file.
type docBlock struct {
	file string
	line int // the line of its opening fence
	lang string
	text string
}

// docBlocks returns the fenced blocks of the README and of every page under docs/.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../../README.md"}, files...)
	fence := regexp.MustCompile("^\\s*```(\\w*)\\s*$")
	var out []docBlock
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			m := fence.FindStringSubmatch(lines[i])
			if m == nil {
				continue
			}
			j := i + 1
			for j < len(lines) && !fence.MatchString(lines[j]) {
				j++
			}
			out = append(out, docBlock{file: filepath.Base(f), line: i + 1, lang: m[1], text: strings.Join(lines[i+1:j], "\n") + "\n"})
			i = j
		}
	}
	return out
}

// whole reports whether a YAML block is a configuration of its own, not a
// fragment: it has top-level providers and targets.
func whole(y string) bool {
	return regexp.MustCompile(`(?m)^providers:`).MatchString(y) && regexp.MustCompile(`(?m)^targets:`).MatchString(y)
}

// setDocEnv gives every ${VAR} a block reads a value (no key of anyone's).
func setDocEnv(t *testing.T, y string) {
	for _, m := range regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)`).FindAllStringSubmatch(y, -1) {
		t.Setenv(m[1], "review39f-value-of-"+strings.ToLower(m[1]))
	}
}

// An operator pastes the configurations the README and docs/ show and runs
// `detour check -c detour.yaml` on them: every whole configuration the
// documentation prints must check clean, and the documented example of
// errors must print exactly the errors the page says it does.
func TestDocsConfigurationsCheckClean_review39f(t *testing.T) {
	blocks := docBlocks(t)
	dir := t.TempDir()
	t.Chdir(dir)
	checked, errExample := 0, false
	for i, b := range blocks {
		if b.lang != "yaml" || !whole(b.text) {
			continue
		}
		if err := os.WriteFile("detour.yaml", []byte(b.text), 0o644); err != nil {
			t.Fatal(err)
		}
		setDocEnv(t, b.text)
		// The example of errors is followed by the output it gives.
		var want string
		if i+1 < len(blocks) && blocks[i+1].lang == "" && strings.HasPrefix(blocks[i+1].text, "detour.yaml:") {
			want = blocks[i+1].text
			os.Unsetenv("OPENAI_API_KEY") // its first error is the unset key
		}
		var out, errb bytes.Buffer
		code := run([]string{"check", "-c", "detour.yaml"}, nil, &out, &errb)
		switch {
		case want != "":
			errExample = true
			if code != 1 || errb.String() != want {
				t.Errorf("%s:%d: the example of errors printed (exit %d)\n%s\nthe page says\n%s", b.file, b.line, code, errb.String(), want)
			}
		case code != 0:
			t.Errorf("%s:%d: the configuration the page shows does not check (exit %d):\n%s", b.file, b.line, code, errb.String())
		default:
			checked++
		}
	}
	if checked < 2 || !errExample {
		t.Fatalf("found %d whole configurations and the error example %v: the pages changed shape, look again", checked, errExample)
	}
}
