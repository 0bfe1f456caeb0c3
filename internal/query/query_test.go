package query

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

var t0 = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

// failover: claude answered quota, gpt answered.
func failover(id string, at time.Time) *decision.Decision {
	return &decision.Decision{ID: id, Time: at, Route: "deep", Outcome: "ok", Status: 200, Client: "key:01020304",
		Attempts: []decision.Attempt{
			{Target: "claude", Provider: "anthropic", Status: 400, Class: "quota", Action: "next_target"},
			{Target: "gpt", Provider: "openai", Status: 200, Action: "done"}}}
}

func failed(id string, at time.Time) *decision.Decision {
	return &decision.Decision{ID: id, Time: at, Route: "cheap", Outcome: "error", Status: 500, Class: "server_error",
		Attempts: []decision.Attempt{
			{Target: "flash", Provider: "gemini", Status: 500, Class: "server_error", Action: "retry"},
			{Target: "flash", Provider: "gemini", Status: 500, Class: "server_error", Action: "stop"}}}
}

func canceled(id string, at time.Time) *decision.Decision {
	return &decision.Decision{ID: id, Time: at, Route: "deep", Outcome: "canceled", Status: 499,
		Attempts: []decision.Attempt{{Target: "claude", Provider: "anthropic", Action: "stop"}}}
}

func TestFilterSelects(t *testing.T) {
	recs := []*decision.Decision{failover("a", t0), failed("b", t0.Add(time.Minute)), canceled("c", t0.Add(2*time.Minute))}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "abc"},
		{Filter{Route: "deep"}, "ac"},
		{Filter{Class: "quota"}, "a"},        // an attempt's class, the request ended ok
		{Filter{Class: "server_error"}, "b"}, // the request's class
		{Filter{Class: "ok"}, "a"},           // an attempt that answered
		{Filter{Class: "canceled"}, "c"},     // the client left
		{Filter{Target: "gpt"}, "a"},         // a later attempt's target
		{Filter{Target: "claude", Class: "quota"}, "a"},
		{Filter{Target: "flash", Class: "quota"}, ""},
		{Filter{Provider: "gemini"}, "b"},
		{Filter{Outcome: "error"}, "b"},
		{Filter{Client: "key:01020304"}, "a"},
		{Filter{Since: t0.Add(time.Minute)}, "bc"},
		{Filter{Route: "deep", Outcome: "ok", Class: "quota", Since: t0}, "a"},
	} {
		got := ""
		for _, d := range recs {
			if c.f.Match(d) {
				got += d.ID
			}
		}
		if got != c.want {
			t.Errorf("%+v selects %q, want %q", c.f, got, c.want)
		}
	}
}

// api: the door a request came through; a record without one (written
// before doors) is chat's.
func TestFilterSelectsTheDoor(t *testing.T) {
	g, m := failed("b", t0), canceled("c", t0)
	g.API, m.API = "gemini", "messages"
	recs := []*decision.Decision{failover("a", t0), g, m}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{API: "chat"}, "a"},
		{Filter{API: "gemini"}, "b"},
		{Filter{API: "messages", Route: "deep"}, "c"},
		{Filter{API: "gemini", Route: "deep"}, ""},
		{Filter{API: "responses"}, ""},
	} {
		got := ""
		for _, d := range recs {
			if c.f.Match(d) {
				got += d.ID
			}
		}
		if got != c.want {
			t.Errorf("%+v selects %q, want %q", c.f, got, c.want)
		}
	}
}

func TestFilterCheckNamesTheKnownValues(t *testing.T) {
	if err := (Filter{Class: "quota", Outcome: "error"}).Check(); err != nil {
		t.Error(err)
	}
	if err := (Filter{Class: "qouta"}).Check(); err == nil || !strings.Contains(err.Error(), "rate_limited") {
		t.Errorf("a misspelt class: %v", err)
	}
	if err := (Filter{Outcome: "failed"}).Check(); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("an unknown outcome: %v", err)
	}
	for _, a := range APIs() {
		if err := (Filter{API: a}).Check(); err != nil {
			t.Error(err)
		}
	}
	// count_tokens is recorded as messages, Gemini's every path as gemini:
	// a name the record never holds is refused, not an empty result.
	for _, a := range []string{"count_tokens", "anthropic", "Chat"} {
		if err := (Filter{API: a}).Check(); err == nil || !strings.Contains(err.Error(), "gemini") {
			t.Errorf("api %q: %v", a, err)
		}
	}
	if err := (Filter{API: "count_tokens"}).Check(); err == nil || !strings.Contains(err.Error(), "recorded as messages") {
		t.Errorf("count_tokens, the in-progress list's name: %v", err)
	}
}

func TestSummaryTable(t *testing.T) {
	var s Summary
	var b strings.Builder
	s.WriteTable(&b)
	if b.String() != "no records\n" {
		t.Errorf("empty summary: %q", b.String())
	}
	for _, d := range []*decision.Decision{failover("a", t0), failover("b", t0), failed("c", t0), canceled("d", t0)} {
		s.Add(d)
	}
	b.Reset()
	if err := s.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := [][]string{
		{"requests", "by", "route;", "each", "class", "column", "counts", "attempts"},
		{"route", "requests", "not", "ok", "ok", "quota", "server_error", "canceled"},
		{"cheap", "1", "1", "0", "0", "2", "0"},
		{"deep", "3", "1", "2", "2", "0", "1"},
		{"total", "4", "2", "2", "2", "2", "1"},
		{},
		// The attempts by provider: which provider the failures were
		// (operator review 57).
		{"provider", "attempts", "not", "ok", "ok", "quota", "server_error", "canceled"},
		{"anthropic", "3", "3", "0", "2", "0", "1"},
		{"gemini", "2", "2", "0", "0", "2", "0"},
		{"openai", "2", "0", "2", "0", "0", "0"},
	}
	if len(got) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i := range want {
		if strings.Join(strings.Fields(got[i]), " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d = %q, want fields %q\n%s", i, got[i], want[i], b.String())
		}
	}
}

func lines(recs ...*decision.Decision) string {
	var b strings.Builder
	for _, d := range recs {
		j, _ := json.Marshal(d)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// A line that is not a record is reported with its number and reading goes
// on; a last line without a newline is read.
func TestScanReportsBadLinesAndGoesOn(t *testing.T) {
	in := lines(failover("a", t0)) + "not json\n\n" + `{"route":"x"}` + "\n" + strings.TrimSuffix(lines(failed("b", t0)), "\n")
	var ids []string
	var bad []string
	err := Scan(strings.NewReader(in), func(d *decision.Decision, line []byte) error {
		ids = append(ids, d.ID)
		if !json.Valid(line) {
			t.Errorf("line handed over is not the JSON line: %q", line)
		}
		return nil
	}, func(b *BadLine) { bad = append(bad, b.Error()) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "a,b" {
		t.Errorf("records %v", ids)
	}
	if len(bad) != 2 || !strings.HasPrefix(bad[0], "line 2:") || !strings.HasPrefix(bad[1], "line 4:") {
		t.Errorf("bad lines %q", bad)
	}
}

// Follow hands over lines as they are appended (a half-written line only
// once complete), reads a truncated file again and a rotated one from its
// start.
func TestFollowAppendsTruncationAndRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	if err := os.WriteFile(path, []byte(lines(failover("a", t0))), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var ids []string
	got := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(ids, ",") }
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second) // a failure guard, not a timing assertion
		for got() != want {
			if time.Now().After(deadline) {
				t.Fatalf("followed %q, want %q", got(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, path, func(d *decision.Decision, _ []byte) error {
			mu.Lock()
			ids = append(ids, d.ID)
			mu.Unlock()
			return nil
		}, func(b *BadLine) { t.Errorf("bad line: %v", b) })
	}()
	waitFor("a")

	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	l := lines(failed("b", t0))
	f.WriteString(l[:20]) // half a line
	time.Sleep(3 * PollEvery)
	if got() != "a" {
		t.Fatalf("a half-written line was handed over: %q", got())
	}
	f.WriteString(l[20:])
	f.Close()
	waitFor("a,b")

	os.WriteFile(path, []byte(lines(canceled("c", t0))), 0o644) // truncated and rewritten
	waitFor("a,b,c")

	os.Rename(path, path+".1")
	os.WriteFile(path, []byte(lines(failover("d", t0))), 0o644)
	waitFor("a,b,c,d")

	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
