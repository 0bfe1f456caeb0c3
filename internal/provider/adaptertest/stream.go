package adaptertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Events reads s to io.EOF; any other error fails t.
func Events(t testing.TB, s provider.Stream) []provider.Event {
	t.Helper()
	var out []provider.Event
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
}

// Ends reads s to io.EOF (as Events) and counts its error events and its
// finishes: how a stream ended.
func Ends(t testing.TB, s provider.Stream) (errs, finishes int) {
	t.Helper()
	for _, ev := range Events(t, s) {
		if ev.Error {
			errs++
		}
		if ev.Finished {
			finishes++
		}
	}
	return errs, finishes
}

// eventRecord is one translated stream event as the golden files hold it.
type eventRecord struct {
	Chunks    []json.RawMessage `json:"chunks,omitempty"`
	Content   bool              `json:"content,omitempty"`
	Progress  bool              `json:"progress,omitempty"`
	Done      bool              `json:"done,omitempty"`
	Finished  bool              `json:"finished,omitempty"`
	Reopened  bool              `json:"reopened,omitempty"`
	Error     bool              `json:"error,omitempty"`
	Malformed bool              `json:"malformed,omitempty"`
	Usage     *provider.Usage   `json:"usage,omitempty"`
}

// Record reads s to io.EOF and returns its events as the golden files hold
// them: one JSON object a line.
func Record(t testing.TB, s provider.Stream) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, ev := range Events(t, s) {
		r := eventRecord{Content: ev.Content, Progress: ev.Progress, Done: ev.Done, Finished: ev.Finished, Reopened: ev.Reopened, Error: ev.Error, Malformed: ev.Malformed, Usage: ev.Usage}
		for _, c := range ev.Chunks {
			r.Chunks = append(r.Chunks, json.RawMessage(c))
		}
		b, _ := json.Marshal(r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// GoldenStreams feeds each published SSE transcript matching glob (each
// citing its source in a leading ": source: " comment) to newStream and
// compares the recorded events with the file beside it named *.want.jsonl,
// one subtest a transcript. With update set it first rewrites that file.
func GoldenStreams(t *testing.T, glob string, newStream func(io.Reader) provider.Stream, update bool) {
	t.Helper()
	paths, _ := filepath.Glob(glob)
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
			got := Record(t, newStream(bytes.NewReader(in)))
			wantPath := strings.TrimSuffix(p, filepath.Ext(p)) + ".want.jsonl"
			if update {
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

// FuzzStream seeds f with testdata/stream/<seed>.sse for each seed that can
// be read and checks that, whatever the upstream sends, every chunk
// newStream makes of it is valid JSON (over at most 10,000 events).
func FuzzStream(f *testing.F, newStream func(io.Reader) provider.Stream, seeds ...string) {
	f.Helper()
	for _, name := range seeds {
		if b, err := os.ReadFile(filepath.Join("testdata", "stream", name+".sse")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := newStream(bytes.NewReader(in))
		for i := 0; i < 10000; i++ {
			ev, err := s.Next()
			if err != nil {
				return
			}
			for _, c := range ev.Chunks {
				if !json.Valid(c) {
					t.Fatalf("invalid chunk %q", c)
				}
			}
		}
	})
}
