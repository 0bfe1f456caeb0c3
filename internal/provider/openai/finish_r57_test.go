package openai

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestVendorFinishWrittenAsOpenAIs: a vendor's finish word for a cut answer
// reaches every door as OpenAI's (probe 57a: pydantic-ai fails a run on
// any other word, and the Messages and Responses doors told "sensitive" and
// "model_length" as a normal end). Text that quotes such a member inside a
// string is left alone, and an answer without one is returned unallocated.
func TestVendorFinishWrittenAsOpenAIs(t *testing.T) {
	for in, want := range map[string]string{
		`{"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"sensitive"}]}`:                    `{"choices":[{"index":0,"message":{"content":"a"},"finish_reason":"content_filter"}]}`,
		`{"choices":[{"index":0,"message":{"content":"a"},"finish_reason" : "model_length"}]}`:               `{"choices":[{"index":0,"message":{"content":"a"},"finish_reason" : "length"}]}`,
		`{"choices":[{"finish_reason":"model_context_window_exceeded"},{"finish_reason":"sensitive"}]}`:      `{"choices":[{"finish_reason":"length"},{"finish_reason":"content_filter"}]}`,
		`{"choices":[{"message":{"content":"say \"finish_reason\":\"sensitive\""},"finish_reason":"stop"}]}`: `{"choices":[{"message":{"content":"say \"finish_reason\":\"sensitive\""},"finish_reason":"stop"}]}`,
		`{"choices":[{"finish_reason":null}]}`:                                                               `{"choices":[{"finish_reason":null}]}`,
	} {
		if got := string(openaiFinishes([]byte(in))); got != want {
			t.Errorf("%s\n got %s\nwant %s", in, got, want)
		}
	}
	plain := []byte(`{"choices":[{"finish_reason":"stop"}]}`)
	if n := testing.AllocsPerRun(100, func() { openaiFinishes(plain) }); n != 0 {
		t.Errorf("%v allocations for an answer with OpenAI's finish", n)
	}
}

// TestVendorFailureFinishIsAnErrorEvent: DeepSeek's
// insufficient_system_resource and Zhipu's network_error end a stream the
// provider failed: the event is an error (never a finish), whichever way
// the chunk is read (scan, or decode for a shape scan leaves to it).
func TestVendorFailureFinishIsAnErrorEvent(t *testing.T) {
	for _, w := range []string{"insufficient_system_resource", "network_error"} {
		for _, chunk := range []string{
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"` + w + `"}]}`,
			`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"` + w + `","Index":0}]}`, // decode
		} {
			body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: " + chunk + "\n\ndata: [DONE]\n\n"
			st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
			errs, finished := adaptertest.Ends(t, st)
			if errs != 1 || finished != 0 {
				t.Errorf("%s: %d error events, %d finished", chunk, errs, finished)
			}
		}
	}
}
