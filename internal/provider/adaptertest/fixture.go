package adaptertest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Fixture is one golden file: a published vendor example and what it must
// translate to. Source names where the vendor side comes from.
type Fixture struct {
	Source   string          `json:"source"`
	Model    string          `json:"model"`
	In       json.RawMessage `json:"in"`
	Upstream json.RawMessage `json:"upstream"`
	Want     json.RawMessage `json:"want"`
}

// ReadFixtures reads testdata/<dir>/*.json by name (without ".json"). It
// fails when there are none or one names no source.
func ReadFixtures(t testing.TB, dir string) map[string]Fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in %s: %v", dir, err)
	}
	out := make(map[string]Fixture)
	for _, p := range paths {
		f := ReadFixture(t, p)
		if f.Source == "" {
			t.Fatalf("%s: fixture names no source", p)
		}
		out[strings.TrimSuffix(filepath.Base(p), ".json")] = f
	}
	return out
}

// Golden runs translate on each fixture in testdata/<dir>, one subtest a
// fixture, and compares what it returns with the fixture's Want by value.
func Golden(t *testing.T, dir string, translate func(t testing.TB, f Fixture) ([]byte, error)) {
	t.Helper()
	for name, f := range ReadFixtures(t, dir) {
		t.Run(name, func(t *testing.T) {
			got, err := translate(t, f)
			if err != nil {
				t.Fatal(err)
			}
			SameJSON(t, got, f.Want)
		})
	}
}

// ReadFixture reads the one fixture at path.
func ReadFixture(t testing.TB, path string) Fixture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f Fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// ClientRequest is body as the server hands it to an adapter: the JSON
// exactly as sent, with its "stream" flag parsed.
func ClientRequest(t testing.TB, body []byte) *provider.Request {
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

// SameJSON compares two JSON documents by value.
func SameJSON(t testing.TB, got, want []byte) {
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
