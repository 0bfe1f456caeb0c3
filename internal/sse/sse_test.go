package sse

import (
	"bytes"
	"errors"
	"github.com/detour-llm/detour/internal/testutil"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type ev struct{ name, data string }

func readAll(t testing.TB, r io.Reader, maxLine int) ([]ev, error) {
	t.Helper()
	rd := NewReader(r, maxLine)
	var out []ev
	for {
		e, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		out = append(out, ev{e.Name, string(e.Data)})
	}
}

func TestReader(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []ev
	}{
		{"openai", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []ev{{"", `{"a":1}`}, {"", "[DONE]"}}},
		{"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", []ev{{"", "x"}, {"", "y"}}},
		{"named", "event: error\ndata: {\"type\":\"error\"}\n\n", []ev{{"error", `{"type":"error"}`}}},
		{"multiline data", "data: a\ndata: b\n\n", []ev{{"", "a\nb"}}},
		{"comments and ids dropped", ": ping\nid: 7\nretry: 10\ndata: x\n\n", []ev{{"", "x"}}},
		{"no space after colon", "data:x\n\n", []ev{{"", "x"}}},
		{"only one space stripped", "data:  x\n\n", []ev{{"", " x"}}},
		{"empty data line", "data\n\n", []ev{{"", ""}}},
		{"final event without blank line", "data: a\n\ndata: b", []ev{{"", "a"}, {"", "b"}}},
		{"blank lines skipped", "\n\n\ndata: a\n\n\n\n", []ev{{"", "a"}}},
		{"name resets between events", "event: x\ndata: 1\n\ndata: 2\n\n", []ev{{"x", "1"}, {"", "2"}}},
		{"anthropic", "event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n", []ev{{"message_start", "{}"}, {"ping", `{"type": "ping"}`}}},
		{"empty", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(c.in), 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("event %d: got %q, want %q", i, got[i], c.want[i])
				}
			}
			// Same result one byte at a time.
			got1, err := readAll(t, iotest.OneByteReader(strings.NewReader(c.in)), 0)
			if err != nil || len(got1) != len(got) {
				t.Fatalf("one byte reader: %q %v", got1, err)
			}
		})
	}
}

func TestLineLimit(t *testing.T) {
	line := "data: " + strings.Repeat("x", 94) // exactly 100 bytes
	got, err := readAll(t, strings.NewReader(line+"\n\n"), 100)
	if err != nil || len(got) != 1 {
		t.Fatalf("a line of exactly the limit: %v %v", got, err)
	}
	got, err = readAll(t, strings.NewReader(line+"\r\n\r\n"), 100)
	if err != nil || len(got) != 1 {
		t.Fatalf("a CRLF line of exactly the limit: %v %v", got, err)
	}
	_, err = readAll(t, strings.NewReader(line+"x\n\n"), 100)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("over the limit: %v", err)
	}
	_, err = readAll(t, strings.NewReader("data: "+strings.Repeat("y", 40<<10)+"\n\n"), 1<<10)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("long line past the buffer: %v", err)
	}
	got, err = readAll(t, strings.NewReader("data: "+strings.Repeat("y", 40<<10)+"\n\n"), 0)
	if err != nil || len(got) != 1 || len(got[0].data) != 40<<10 {
		t.Fatalf("40 KiB line under the default limit: %v", err)
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom))
	got, err := readAll(t, r, 0)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestWriteData(t *testing.T) {
	var b bytes.Buffer
	if err := WriteData(&b, []byte(`{"x":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := WriteData(&b, Done); err != nil {
		t.Fatal(err)
	}
	if b.String() != "data: {\"x\":1}\n\ndata: [DONE]\n\n" {
		t.Fatalf("%q", b.String())
	}
	got, err := readAll(t, &b, 0)
	if err != nil || len(got) != 2 || got[0].data != `{"x":1}` || got[1].data != "[DONE]" {
		t.Fatalf("round trip: %q %v", got, err)
	}
}

// A bare CR ends a line in the SSE format, as a client's parser reads it:
// Detour's reader must see the same lines, or an upstream could show the
// client an event (an early [DONE], an error) that Detour never read.
func TestReaderBareCR(t *testing.T) {
	in := "data: a\rdata: [DONE]\r\revent: error\rdata: {\"x\":1}\n\ndata: c\r\n\r\n"
	evs, err := readAll(t, strings.NewReader(in), 0)
	if err != nil || len(evs) != 3 || evs[0].data != "a\n[DONE]" ||
		evs[1].name != "error" || evs[1].data != `{"x":1}` || evs[2].data != "c" {
		t.Fatalf("read %q: %+v %v", in, evs, err)
	}
}

// An upstream may spread one event's data over several data lines (the
// reader joins them with a newline): written back, each line gets its own
// "data: ", or the client would read the second line as a field of no name
// and the event's JSON broken.
func TestWriteDataOfSeveralLines(t *testing.T) {
	in := "data: {\"choices\":\ndata: [{\"delta\":{\"content\":\"hi\"}}]}\n\n"
	evs, err := readAll(t, strings.NewReader(in), 0)
	if err != nil || len(evs) != 1 {
		t.Fatalf("read %q: %q %v", in, evs, err)
	}
	var b bytes.Buffer
	if err := WriteData(&b, []byte(evs[0].data)); err != nil {
		t.Fatal(err)
	}
	if b.String() != in {
		t.Fatalf("wrote %q, want %q", b.String(), in)
	}
	if got := string(AppendEvent(nil, []byte("x"), []byte("a\nb"))); got != "event: x\ndata: a\ndata: b\n\n" {
		t.Fatalf("AppendEvent wrote %q", got)
	}
}

// One event's data is bounded like one line: an upstream that sends data
// lines and never the blank line that ends the event cannot grow memory.
func TestEventTooLarge(t *testing.T) {
	line := "data: " + strings.Repeat("z", 30) + "\n" // 30 bytes of data a line
	got, err := readAll(t, strings.NewReader(strings.Repeat(line, 3)+"\n"), 100)
	if err != nil || len(got) != 1 || len(got[0].data) != 92 {
		t.Fatalf("three lines within the limit: %v %d", err, len(got))
	}
	_, err = readAll(t, strings.NewReader(strings.Repeat(line, 4)+"\n"), 100)
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("four lines past the limit: err %v", err)
	}
	// An endless event ends at the limit, not at the end of the input.
	r := io.MultiReader(strings.NewReader(strings.Repeat(line, 1000)), iotest.ErrReader(errors.New("read past the limit")))
	if _, err = readAll(t, r, 1<<10); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("endless event: err %v", err)
	}
}

// FuzzReader: never panics, never returns a line past the limit, and
// agrees with itself when the input arrives one byte at a time.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: {\"a\":1}\n\ndata: [DONE]\n\n", "event: error\r\ndata: x\r\n\r\n", ": c\nid: 1\ndata\n\n",
		"data: a\ndata: b", "\r\r\n\n", "event:\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		const limit = 64
		a, errA := readAll(t, bytes.NewReader(in), limit)
		b, errB := readAll(t, iotest.OneByteReader(bytes.NewReader(in)), limit)
		if (errA == nil) != (errB == nil) || len(a) != len(b) {
			t.Fatalf("chunking changed the result: %q %v vs %q %v", a, errA, b, errB)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("event %d differs: %q vs %q", i, a[i], b[i])
			}
			if len(a[i].data) > len(in) {
				t.Fatalf("data longer than input")
			}
			if len(a[i].data) > limit {
				t.Fatalf("event data longer than the limit: %d", len(a[i].data))
			}
		}
		if errA != nil && !errors.Is(errA, ErrLineTooLong) && !errors.Is(errA, ErrEventTooLarge) {
			t.Fatalf("unexpected error %v", errA)
		}
	})
}

// TestWriteDataReusesItsBuffer: a stream writes one event per chunk; the
// frame is not allocated per event (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
func TestWriteDataReusesItsBuffer(t *testing.T) {
	if testutil.Race {
		t.Skip("the race detector drops pooled items at random")
	}
	data := []byte(`{"id":"c","choices":[{"index":0,"delta":{"content":"hi"}}]}`)
	if n := testing.AllocsPerRun(100, func() { _ = WriteData(io.Discard, data) }); n != 0 {
		t.Fatalf("WriteData allocates %.0f times per event, want 0", n)
	}
}
