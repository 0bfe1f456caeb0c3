package gemini

import (
	"errors"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// A filter's finishReason (SAFETY and its kin) on a candidate that called a
// function: before, any call made the finish tool_calls, so a client was
// told to run calls the filter had flagged, and never saw the filter. A
// stream now fails there, an error event read as the refusal it is, as the
// openai adapter's does after a tool call and Anthropic's on
// stop_reason "refusal" (docs/doors.md); a whole answer is no answer, its
// digest read by the classifier (review 60b: the finishReason may lie past
// the 4 KiB it reads). A normal stop after a call stays tool_calls; a
// filter after text stays content_filter.
func TestFilterAfterAFunctionCall(t *testing.T) {
	call := `{"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":{"name":"write_file","args":{"path":"a.txt","content":"hello"}}}]}}]}`
	text := `{"candidates":[{"index":0,"content":{"role":"model","parts":[{"text":"hello"}]}}]}`
	finish := func(r string) string {
		return `{"candidates":[{"index":0,"content":{"role":"model","parts":[]},"finishReason":"` + r + `"}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":3,"totalTokenCount":8}}`
	}
	callAndFinish := `{"candidates":[{"index":0,"content":{"role":"model","parts":[{"functionCall":{"name":"write_file","args":{"path":"a.txt"}}}]},"finishReason":"SAFETY"}]}`
	for _, c := range []struct {
		name    string
		events  []string
		wantErr bool
	}{
		{"call, then SAFETY", []string{call, finish("SAFETY")}, true},
		{"call, then PROHIBITED_CONTENT", []string{call, finish("PROHIBITED_CONTENT")}, true},
		{"call and SAFETY in one chunk", []string{callAndFinish}, true},
		{"call, then STOP", []string{call, finish("STOP")}, false},
		{"text, then SAFETY", []string{text, finish("SAFETY")}, false},
	} {
		var body strings.Builder
		for _, e := range c.events {
			body.WriteString("data: " + e + "\r\n\r\n")
		}
		errs, finished := adaptertest.Ends(t, testStream(strings.NewReader(body.String())))
		if got := errs == 1 && finished == 0; got != c.wantErr || !c.wantErr && (errs != 0 || finished != 1) {
			t.Errorf("%s: %d error events, %d finishes; want an error: %v", c.name, errs, finished, c.wantErr)
		}
	}

	out, err := Adapter{}.Response([]byte(callAndFinish), testEP)
	var na *provider.NoAnswer
	if !errors.As(err, &na) || out != nil || !strings.Contains(string(na.Digest), `"finishReason":"SAFETY"`) {
		t.Errorf("a whole answer whose call the filter flagged: %s, %v; want no answer, judged by a digest naming SAFETY", out, err)
	}
	out, err = Adapter{}.Response([]byte(strings.Replace(callAndFinish, "SAFETY", "STOP", 1)), testEP)
	if err != nil || !strings.Contains(string(out), `"finish_reason":"tool_calls"`) {
		t.Errorf("a whole answer with a call that stopped: %s, %v; want tool_calls", out, err)
	}
}
