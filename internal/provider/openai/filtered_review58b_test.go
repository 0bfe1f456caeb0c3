package openai

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// review58b: stream.called was one flag for the whole stream, not per
// choice (per choice now). With n=2, choice 0 makes a tool call and finishes it whole
// ("tool_calls"); choice 1 is text that the filter cuts ("content_filter").
// No tool call was cut, and the adapter's own rule says "a filter that
// cuts text alone still finishes as it did" (filtered_test.go), yet the
// whole answer became an error event (refusal: every door's error, a
// failover after the commit point).
func TestReview58bFilterOnAnotherChoiceThanTheToolCall(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}},{"index":1,"delta":{"content":"Here is"}}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"choices":[{"index":1,"delta":{},"finish_reason":"content_filter"}]}`,
	}
	body := ""
	for _, c := range chunks {
		body += "data: " + c + "\n\n"
	}
	body += "data: [DONE]\n\n"
	st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
	errs, _ := adaptertest.Ends(t, st)
	if errs != 0 {
		t.Errorf("%d error events: a filter on choice 1's text failed the answer whose tool call (choice 0) was whole", errs)
	}
}

// review58b: a tool call and the filter in the same chunk, the filter's
// choice listed first (choice 1's text cut, choice 0's tool call
// starting in that chunk): whether it failed depended on the order of the
// choices in the array, since called was set while the loop walked them.
func TestReview58bFilterOrderInOneChunk(t *testing.T) {
	one := func(chunk string) int {
		body := "data: " + chunk + "\n\ndata: [DONE]\n\n"
		st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
		errs := 0
		for {
			ev, err := st.Next()
			if err != nil {
				break
			}
			if ev.Error {
				errs++
			}
		}
		return errs
	}
	a := one(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"w","arguments":"{\"a\":"}}]},"finish_reason":"content_filter"}]}`)
	b := one(`{"choices":[{"index":1,"delta":{},"finish_reason":"content_filter"},{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"w","arguments":"{\"a\":"}}]}}]}`)
	c := one(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":"function","function":{"name":"w","arguments":"{\"a\":"}}]}},{"index":1,"delta":{},"finish_reason":"content_filter"}]}`)
	t.Logf("same choice: %d errors; filter listed before the call: %d; after: %d", a, b, c)
	if b != c {
		t.Errorf("the same chunk's verdict depends on the order of its choices: %d vs %d", b, c)
	}
}
