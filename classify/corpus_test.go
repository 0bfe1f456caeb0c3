package classify

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCase is one real provider answer under testdata/corpus, with the
// class it must get (docs/behaviour.md#classes) and where it was found.
type corpusCase struct {
	Provider string            `json:"provider"`
	Dialect  string            `json:"dialect"`
	Status   int               `json:"status"`
	Headers  map[string]string `json:"headers"`
	Stream   bool              `json:"stream"`
	Body     string            `json:"body"`
	Class    string            `json:"class"`
	Source   string            `json:"source"`
	Note     string            `json:"note"`
	// Request and Model, optional, are the client's request body and the
	// model Detour sent, for an answer whose class depends on them (a
	// not-found answer about something the client named).
	Request string `json:"request"`
	Model   string `json:"model"`
}

func (c corpusCase) response() Response {
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	r := Response{Status: c.Status, Header: h, Body: []byte(c.Body), Dialect: Dialect(c.Dialect),
		Provider: c.Provider, Stream: c.Stream, Model: c.Model}
	if c.Request != "" {
		r.Request = []byte(c.Request)
	}
	return r
}

func loadCorpus(t testing.TB) map[string]corpusCase {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]corpusCase, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c corpusCase
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = c
	}
	return out
}

// TestCorpus classifies every real provider answer in testdata/corpus; one
// subtest per file, so adding a file adds a test.
func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) == 0 {
		t.Skip("no corpus files")
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := ParseClass(c.Class)
			if err != nil {
				t.Fatalf("corpus class: %v", err)
			}
			v := Classify(c.response())
			if !v.Failed {
				t.Fatalf("Failed=false (evidence %q), want %s; note: %s", v.Evidence, want, c.Note)
			}
			if v.Class != want {
				t.Errorf("class %s (evidence %q), want %s; note: %s", v.Class, v.Evidence, want, c.Note)
			}
			if v.Evidence == "" {
				t.Errorf("empty evidence")
			}
		})
	}
}
