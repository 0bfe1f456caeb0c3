package gemini

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
)

func TestAnswer(t *testing.T) {
	in := `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"Let me check.","reasoning_content":"hmm",
	 "tool_calls":[{"id":"call_1","type":"function","function":{"name":"w","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"detour1.abc.sig"}}}]},"finish_reason":"tool_calls"}],
	 "usage":{"prompt_tokens":10,"completion_tokens":7,"total_tokens":17,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":3}}}`
	out, err := Answer([]byte(in), "route", true)
	want := `{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"Let me check."},{"functionCall":{"id":"call_1","name":"w","args":{"city":"Paris"}},"thoughtSignature":"detour1.abc.sig"}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":4,"totalTokenCount":17,"thoughtsTokenCount":3,"cachedContentTokenCount":4},"modelVersion":"route","responseId":"chatcmpl-1"}`
	if err != nil || string(out) != want {
		t.Errorf("got  %s\nwant %s (%v)", out, want, err)
	}
	// No thoughts asked for: none said.
	out, _ = Answer([]byte(in), "route", false)
	if strings.Contains(string(out), "hmm") {
		t.Errorf("thoughts not asked for: %s", out)
	}
	for fr, want := range map[string]string{"stop": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY", "tool_calls": "STOP", "odd": "OTHER"} {
		if got := FinishReason(fr); got != want {
			t.Errorf("FinishReason(%s) = %s, want %s", fr, got, want)
		}
	}
	if _, err := Answer([]byte(`{"choices":[]}`), "r", false); err == nil {
		t.Error("an answer with no choices translated")
	}
}

// TestEncoder: text as it comes (one chunk held back), the call whole in
// the last frame with the finish reason and the usage.
func TestEncoder(t *testing.T) {
	e := NewEncoder("route", false)
	var out []byte
	for _, c := range []string{
		`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"reasoning_content":"hidden"}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":"lo"}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"w","arguments":"{\"ci"}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"P\"}"}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8}}`,
	} {
		b, err := e.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	out = append(out, e.End()...)
	want := `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],"modelVersion":"route","responseId":"c1"}` + "\r\n\r\n" +
		`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"lo"},{"functionCall":{"id":"call_1","name":"w","args":{"city":"P"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8},"modelVersion":"route","responseId":"c1"}` + "\r\n\r\n"
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestEnvelope(t *testing.T) {
	for status, want := range map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		413: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 502: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"} {
		if got := StatusFor(status); got != want {
			t.Errorf("StatusFor(%d) = %s, want %s", status, got, want)
		}
	}
	if got := string(Envelope(http.StatusNotFound, "no")); got != `{"error":{"code":404,"message":"no","status":"NOT_FOUND"}}` {
		t.Errorf("envelope %s", got)
	}
	if got := string(ClassEnvelope(classify.Timeout, 502, "slow")); got != `{"error":{"code":502,"message":"slow","status":"DEADLINE_EXCEEDED"}}` {
		t.Errorf("class envelope %s", got)
	}
	if got := string(ErrorFrame(classify.ServerError, 200, "cut")); got != "data: {\"error\":{\"code\":500,\"message\":\"cut\",\"status\":\"INTERNAL\"}}\r\n\r\n" {
		t.Errorf("frame %q", got)
	}
}

// TestEncoderBoundsHeldCalls: the encoder holds tool calls until End;
// an upstream streaming one call's arguments without end made it hold
// them without bound (hostile 69j). Past MaxHeld, Chunk says ErrTooLarge.
func TestEncoderBoundsHeldCalls(t *testing.T) {
	e := NewEncoder("route", false)
	piece := strings.Repeat("a", 1<<20)
	first := `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":\"` + piece + `"}}]}}]}`
	if _, err := e.Chunk([]byte(first)); err != nil {
		t.Fatal(err)
	}
	next := `{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"` + piece + `"}}]}}]}`
	for i := 0; i < 40; i++ {
		if _, err := e.Chunk([]byte(next)); err != nil {
			if !errors.Is(err, ErrTooLarge) || i < 14 {
				t.Fatalf("after %d MiB: %v, want ErrTooLarge past %d MiB", i+1, err, MaxHeld>>20)
			}
			return
		}
	}
	t.Fatalf("41 MiB of one call's arguments held, no error (bound %d MiB)", MaxHeld>>20)
}
