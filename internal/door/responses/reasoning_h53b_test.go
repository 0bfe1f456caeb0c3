package responses

import (
	"runtime"
	"strings"
	"testing"
)

// hostile53b: a client sends [reasoning, function_call] pairs, as Codex
// sends back a turn of interleaved thinking and parallel calls. Every
// function_call after the first joins the same assistant message, and each
// pair's reasoning is joined onto that message's whole reasoning_content
// again (before the fix: the translation copied the reasoning so far once
// per pair, quadratic in the body; an 8 MiB body took 19 s of CPU). Each
// test in this file failed before its fix.
func TestHostile53bReasoningBetweenCallsIsNotQuadratic(t *testing.T) {
	build := func(limit int) []byte {
		text := strings.Repeat("r", 140)
		var b strings.Builder
		b.WriteString(`{"model":"m","input":[`)
		for i := 0; b.Len() < limit; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"` + text + `"}]},`)
			b.WriteString(`{"type":"function_call","call_id":"c` + itoa(i) + `","name":"f","arguments":"{}"}`)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	// Bytes allocated, not time (a timed test flakes on a busy machine):
	// joining a turn's reasoning again at each of its calls allocated the
	// square of the body.
	big := build(2 << 20)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := Translate(big); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64*uint64(len(big)) {
		t.Errorf("a %d-byte body of [reasoning, function_call] pairs allocated %d bytes to translate (%.0fx): quadratic", len(big), got, float64(got)/float64(len(big)))
	}
}

func itoa(i int) string {
	const d = "0123456789"
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{d[i%10]}, b...)
	}
	return string(b)
}

// hostile53b: an upstream streams reasoning_content between two pieces of
// one tool call's arguments (or after a call is named and before its
// arguments come, the review 48b shape). The whole answer
// (FromCompletion) of the same content has the call's full arguments; the
// stream closes the call at the reasoning (reasoning() calls closeCalls)
// "completed" with the arguments so far, and drops the rest (the call is in
// s.closed): the client runs get_weather with `{"city":` — broken JSON in a
// completed call.
func TestHostile53bReasoningMidArgumentsDoesNotTruncateACompletedCall(t *testing.T) {
	s := NewStream(nil, "m", 1)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"I need the weather."}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"reasoning_content":"Paris, I think."}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	} {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	out.Write(s.End())
	var completed string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, `"type":"response.completed"`) {
			completed = l
		}
	}
	if !strings.Contains(completed, `"arguments":"{\"city\":\"Paris\"}"`) {
		t.Errorf("the call's arguments {\"city\":\"Paris\"} did not reach the client whole; response.completed:\n%s\nstream:\n%s", completed, out.String())
	}
}

// hostile53b (finding 4, whole answers): FromCompletion writes the answer
// with encoding/json's HTML escaping, so a whole answer of markup (round
// 53's reasoning item, or text) comes out six times its size: measured, 60
// MiB of '<' (under maxAnswer, 64 MiB) made 360 MiB of response and 4.1 GiB
// of allocation. Every body Detour builds for an upstream is written
// without that escaping (rawjson.Marshal), the SDKs decode either.
func TestHostile53bWholeMarkupAnswerDoesNotGrowSixfold(t *testing.T) {
	body := []byte(`{"choices":[{"message":{"content":"ok","reasoning_content":"` + strings.Repeat("<", 8<<20) + `"},"finish_reason":"stop"}]}`)
	b, err := FromCompletion(body, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 2*len(body) {
		t.Errorf("an answer of %d bytes (8 MiB of '<' reasoning) became a response of %d bytes (%.1fx)", len(body), len(b), float64(len(b))/float64(len(body)))
	}
}
