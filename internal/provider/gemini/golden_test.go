package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/provider"
)

var update = flag.Bool("update", false, "rewrite stream golden files")

var testEP = provider.Endpoint{BaseURL: "http://upstream.invalid", APIKey: "AIza-test", Model: "gemini-2.5-flash"}

func TestMain(m *testing.M) {
	now = func() time.Time { return time.Unix(1767225600, 0) }
	newID = func() string { return "chatcmpl-test" }
	os.Exit(m.Run())
}

// fixture is one golden file: a published vendor example and what it must
// translate to. Source names where the vendor side comes from.
type fixture struct {
	Source   string          `json:"source"`
	Model    string          `json:"model"`
	In       json.RawMessage `json:"in"`
	Upstream json.RawMessage `json:"upstream"`
	Want     json.RawMessage `json:"want"`
}

func readFixtures(t *testing.T, dir string) map[string]fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	out := make(map[string]fixture)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var f fixture
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if f.Source == "" {
			t.Fatalf("%s: fixture names no source", p)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = f
	}
	return out
}

func clientRequest(t testing.TB, body []byte) *provider.Request {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatal(err)
	}
	var stream bool
	if s, ok := fields["stream"]; ok {
		_ = json.Unmarshal(s, &stream)
	}
	return &provider.Request{Body: body, Stream: stream}
}

// sameJSON compares two JSON documents by value.
func sameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("mismatch\n got: %s\nwant: %s", got, compact(want))
	}
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

func TestTranslateGolden(t *testing.T) {
	for name, f := range readFixtures(t, "request") {
		t.Run(name, func(t *testing.T) {
			got, err := Translate(clientRequest(t, f.In))
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, got, f.Want)
		})
	}
}

func TestResponseGolden(t *testing.T) {
	for name, f := range readFixtures(t, "response") {
		t.Run(name, func(t *testing.T) {
			got, err := Adapter{}.Response(f.Upstream, testEP)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, got, f.Want)
		})
	}
}

// eventRecord is one translated stream event as the golden files hold it.
type eventRecord struct {
	Chunks    []json.RawMessage `json:"chunks,omitempty"`
	Content   bool              `json:"content,omitempty"`
	Done      bool              `json:"done,omitempty"`
	Error     bool              `json:"error,omitempty"`
	Malformed bool              `json:"malformed,omitempty"`
	Usage     *provider.Usage   `json:"usage,omitempty"`
}

func record(t testing.TB, s provider.Stream) []byte {
	t.Helper()
	var buf bytes.Buffer
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return buf.Bytes()
		}
		if err != nil {
			t.Fatal(err)
		}
		r := eventRecord{Content: ev.Content, Done: ev.Done, Error: ev.Error, Malformed: ev.Malformed, Usage: ev.Usage}
		for _, c := range ev.Chunks {
			r.Chunks = append(r.Chunks, json.RawMessage(c))
		}
		b, _ := json.Marshal(r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
}

// TestStreamGolden feeds published SSE transcripts (testdata/stream/*.sse,
// each citing its source in an SSE comment) and compares the translated
// event sequence with *.want.jsonl, one event per line.
func TestStreamGolden(t *testing.T) {
	paths, _ := filepath.Glob("testdata/stream/*.sse")
	if len(paths) == 0 {
		t.Fatal("no stream fixtures")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			in, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(in, []byte(": source: ")) {
				t.Fatal("stream fixture names no source")
			}
			got := record(t, Adapter{}.Stream(bytes.NewReader(in), testEP))
			wantPath := strings.TrimSuffix(p, ".sse") + ".want.jsonl"
			if *update {
				if err := os.WriteFile(wantPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("events differ\n got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func readFixturesB(b *testing.B, path string) fixture {
	b.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(raw, &f); err != nil {
		b.Fatal(err)
	}
	return f
}
