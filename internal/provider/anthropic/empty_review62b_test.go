package anthropic

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 62b: a content_block_delta relayed as it came (the Messages door
// at an Anthropic provider) that adds nothing — an empty text, input,
// thinking or signature — is no content, so it does not restart
// idle_timeout; one that adds, or of a type Detour does not know (a
// citation), is.
func TestNativeStreamEmptyDeltasAreNoContent(t *testing.T) {
	for _, c := range []struct {
		delta   string
		content bool
	}{
		{`{"type":"text_delta","text":""}`, false},
		{`{"type":"input_json_delta","partial_json":""}`, false},
		{`{"type":"thinking_delta","thinking":""}`, false},
		{`{"type":"signature_delta","signature":""}`, false},
		{`{"type":"text_delta"}`, false},
		{`null`, false},
		{`{"type":"text_delta","text":"Hel"}`, true},
		{`{"type":"thinking_delta","thinking":"hmm"}`, true},
		{`{"type":"signature_delta","signature":"EqQB"}`, true},
		{`{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x"}}`, true},
		{`{"type":"some_future_delta","value":""}`, true},
	} {
		in := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":" + c.delta + "}\n\n"
		s := Adapter{}.NativeStream("", strings.NewReader(in), provider.Endpoint{})
		e, err := s.Next()
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		if e.Content != c.content {
			t.Errorf("%s: content %v, want %v", c.delta, e.Content, c.content)
		}
	}
}
