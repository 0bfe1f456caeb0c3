package decision

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriterAppendsJSONLinesAndFlushesOnClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"earlier"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		w.Write(&Decision{ID: NewID(), Time: time.Unix(0, 0).UTC(), Route: "deep", Outcome: OutcomeOK, Status: 200,
			Attempts: []Attempt{{Target: "t", Provider: "p", Action: ActionDone, Billable: true}}, Transitions: []Transition{}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var d map[string]any
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("line %d is not JSON: %v", n+1, err)
		}
		if n > 0 {
			for _, k := range []string{"id", "time", "route", "strategy", "outcome", "status", "ms", "attempts", "transitions"} {
				if _, ok := d[k]; !ok {
					t.Fatalf("line %d lacks %q: %s", n+1, k, sc.Text())
				}
			}
			a := d["attempts"].([]any)[0].(map[string]any)
			for _, k := range []string{"target", "provider", "model", "status", "action", "counted", "billable", "ms"} {
				if _, ok := a[k]; !ok {
					t.Fatalf("attempt lacks %q: %s", k, sc.Text())
				}
			}
		}
		n++
	}
	if n != 1001 {
		t.Fatalf("%d lines, want 1001 (the earlier line kept, 1000 appended)", n)
	}
}

func TestNewIDIsUnique(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		id := NewID()
		if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" || seen[id] {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

// stalled is an output whose writes block until released.
type stalled struct{ release chan struct{} }

func (s stalled) Write(p []byte) (int, error) { <-s.release; return len(p), nil }

// A stalled output never blocks a request: records beyond the queue are
// dropped and counted.
func TestWriterNeverBlocksOnAStalledOutput(t *testing.T) {
	out := stalled{release: make(chan struct{})}
	w := NewWriter(out, nil, Options{})
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			w.Write(&Decision{ID: "x"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a failure guard, not a timing assertion
		t.Fatal("Write blocked on a stalled output")
	}
	if w.Dropped() == 0 {
		t.Error("nothing counted as dropped")
	}
	close(out.release)
	w.Close()
}

// A request that outlives the shutdown's grace period writes after Close: it
// is dropped and counted, never a panic.
func TestWriteAfterCloseIsDropped(t *testing.T) {
	w := NewWriter(io.Discard, nil, Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Write(&Decision{ID: "late"})
	if w.Dropped() != 1 {
		t.Errorf("dropped %d, want 1", w.Dropped())
	}
}

type ctxKey struct{}

// ctxRecorder is a ContextSink that keeps each record with the value the
// context carried.
type ctxRecorder struct{ got []string }

func (r *ctxRecorder) Write(d *Decision) { r.got = append(r.got, d.ID+":none") }
func (r *ctxRecorder) WriteContext(ctx context.Context, d *Decision) {
	v, _ := ctx.Value(ctxKey{}).(string)
	r.got = append(r.got, d.ID+":"+v)
}

type plainRecorder struct{ got []string }

func (r *plainRecorder) Write(d *Decision) { r.got = append(r.got, d.ID) }

// Tee hands every record to every sink, in order, with the request's
// context to the sinks that want it.
func TestTeeHandsEveryRecordToEverySinkWithItsContext(t *testing.T) {
	c, p := &ctxRecorder{}, &plainRecorder{}
	s := Tee(p, nil, c)
	ctx := context.WithValue(context.Background(), ctxKey{}, "trace-1")
	Emit(ctx, s, &Decision{ID: "a"})
	s.Write(&Decision{ID: "b"})
	if strings.Join(p.got, ",") != "a,b" {
		t.Errorf("plain sink got %v", p.got)
	}
	if strings.Join(c.got, ",") != "a:trace-1,b:" {
		t.Errorf("context sink got %v", c.got)
	}
	if Tee(p) != Sink(p) || Tee() != Discard {
		t.Error("Tee of one sink is not that sink, or Tee of none is not Discard")
	}
}

// lines counts the records out has been given.
func (w *writes) lines() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.calls {
		n += bytes.Count(c, []byte("\n"))
	}
	return n
}

// Without Sync a record is written within FlushEvery of its Write, with
// no Close and no other record to push it out.
func TestBufferedRecordIsWrittenWithinFlushEvery(t *testing.T) {
	out := &writes{}
	w := NewWriter(out, nil, Options{})
	defer w.Close()
	w.Write(&Decision{ID: "one"})
	deadline := time.Now().Add(10 * FlushEvery) // a failure guard: the record is due within one FlushEvery
	for out.lines() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("record not written after %v", 10*FlushEvery)
		}
		time.Sleep(FlushEvery / 10)
	}
}

// A burst from many requests is written whole: every record is either
// written, once, or counted as dropped, and none is dropped while the
// queue has room.
func TestBurstIsWrittenOrCounted(t *testing.T) {
	out := &writes{}
	w := NewWriter(out, nil, Options{})
	var wg sync.WaitGroup
	const each = 3 * queueSize / 4 / 4 // the four writers together stay within the queue
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				w.Write(&Decision{ID: fmt.Sprintf("%d-%d", g, i)})
			}
		}()
	}
	wg.Wait()
	w.Close()
	if got, dropped := out.lines(), w.Dropped(); got != 4*each || dropped != 0 {
		t.Fatalf("%d written, %d dropped, want %d and 0", got, dropped, 4*each)
	}
}
