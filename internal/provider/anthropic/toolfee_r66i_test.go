package anthropic

import (
	"os"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// lastUsage is the usage the last event that reported one carried: what
// the dispatcher keeps of a stream.
func lastUsage(t *testing.T, s provider.Stream) *provider.Usage {
	t.Helper()
	var u *provider.Usage
	for _, ev := range adaptertest.Events(t, s) {
		if ev.Usage != nil {
			u = ev.Usage
		}
	}
	return u
}

// An answer's per-use counts of Anthropic's server tools
// (usage.server_tool_use.web_search_requests and web_fetch_requests) are
// read, whole and streamed, natively and translated, for a target's
// web_search and web_fetch prices (build 66i). The usage objects are the
// examples Anthropic's pricing page publishes
// (https://platform.claude.com/docs/en/about-claude/pricing, "Web search
// tool", "Web fetch tool"), in the least message around them.
func TestServerToolCountsBuild66i(t *testing.T) {
	const search = `{"input_tokens": 105, "output_tokens": 6039, "cache_read_input_tokens": 7123, "cache_creation_input_tokens": 7345, "server_tool_use": {"web_search_requests": 1}}`
	const fetch = `{"input_tokens": 25039, "output_tokens": 931, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0, "server_tool_use": {"web_fetch_requests": 1}}`
	for _, c := range []struct {
		name, usage     string
		searches, fetch int
	}{
		{"search", search, 1, 0},
		{"fetch", fetch, 0, 1},
		{"none", `{"input_tokens": 10, "output_tokens": 5}`, 0, 0},
		{"null", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": null}`, 0, 0},
		// Hostile counts: a fraction is floored as token counts are; a
		// count past 18 digits, a string or an object is no count (0),
		// never a failed answer; a negative one is read as written and
		// bounded where it is priced (internal/dispatch).
		{"fraction", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 2.7}}`, 2, 0},
		{"huge", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": 1e300}}`, 0, 0},
		{"string", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": "5"}}`, 0, 0},
		{"object", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": {}}}`, 0, 0},
		{"negative", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": {"web_search_requests": -4}}`, -4, 0},
		{"not an object", `{"input_tokens": 10, "output_tokens": 5, "server_tool_use": 3}`, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"type":"message","role":"assistant","content":[],"usage":` + c.usage + `}`
			u, err := Adapter{}.NativeAnswer(provider.APIMessages, []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			if u == nil || u.WebSearches != c.searches || u.WebFetches != c.fetch {
				t.Fatalf("native answer: %+v, want %d searches, %d fetches", u, c.searches, c.fetch)
			}
			if c.name == "search" && (u.PromptTokens != 105+7123+7345 || u.CompletionTokens != 6039) {
				t.Errorf("tokens lost beside the count: %+v", u)
			}
			if _, err := (Adapter{}).Response([]byte(body), testEP); err != nil {
				t.Fatalf("translated answer: %v", err)
			}
		})
	}
}

// A stream's count is message_delta's, which overrides message_start's
// (Anthropic's usage in a stream is cumulative): the docs' web search
// stream reports one search at its end; a delta without server_tool_use
// keeps what the start said (build 66i).
func TestServerToolCountsStreamBuild66i(t *testing.T) {
	for _, native := range []bool{false, true} {
		f, err := os.Open("testdata/stream/web_search.sse")
		if err != nil {
			t.Fatal(err)
		}
		s := testStream(f)
		if native {
			s = Adapter{}.NativeStream(provider.APIMessages, f, testEP)
		}
		u := lastUsage(t, s)
		f.Close()
		if u == nil || u.WebSearches != 1 || u.WebFetches != 0 || u.PromptTokens != 10682 || u.CompletionTokens != 510 {
			t.Errorf("native %v: %+v, want the delta's 1 search beside its tokens", native, u)
		}
	}

	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	start := func(stu string) string {
		return ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1`+stu+`}}}`)
	}
	delta := func(stu string) string {
		return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9`+stu+`}}`)
	}
	for _, c := range []struct {
		name, body      string
		searches, fetch int
	}{
		{"delta overrides start", start(`,"server_tool_use":{"web_search_requests":1}`) + delta(`,"server_tool_use":{"web_search_requests":3,"web_fetch_requests":2}`), 3, 2},
		{"delta lower than start", start(`,"server_tool_use":{"web_search_requests":4}`) + delta(`,"server_tool_use":{"web_search_requests":2}`), 2, 0},
		{"delta without it keeps start's", start(`,"server_tool_use":{"web_search_requests":1}`) + delta(``), 1, 0},
		{"delta null keeps start's", start(`,"server_tool_use":{"web_fetch_requests":1}`) + delta(`,"server_tool_use":null`), 0, 1},
		{"start alone (cut before the delta)", start(`,"server_tool_use":{"web_search_requests":2}`), 2, 0},
		{"none", start(``) + delta(``), 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, native := range []bool{false, true} {
				s := testStream(strings.NewReader(c.body))
				if native {
					s = Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(c.body), testEP)
				}
				u := lastUsage(t, s)
				if u == nil || u.WebSearches != c.searches || u.WebFetches != c.fetch {
					t.Errorf("native %v: %+v, want %d searches, %d fetches", native, u, c.searches, c.fetch)
				}
			}
		})
	}
}

// Review 66k: a stream cut before its message_delta (the client left, the
// upstream's connection broke) ran its searches all the same, and
// Anthropic bills each ("If an error occurs during web search, the web
// search will not be billed": a result is). Its message_start counts none
// (the docs' stream has no server_tool_use there), so each search result
// the stream showed is a floor of its count until a message_delta says
// it: before, the key paid for none of them.
func TestServerToolCountsCutStreamReview66k(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	start := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":20,"output_tokens":1}}}`)
	use := func(i int, name string) string {
		return ev("content_block_start", `{"type":"content_block_start","index":`+string(rune('0'+i))+`,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"`+name+`","input":{}}}`)
	}
	result := func(i int, block string) string {
		return ev("content_block_start", `{"type":"content_block_start","index":`+string(rune('0'+i))+`,"content_block":`+block+`}`)
	}
	found := `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"t","url":"https://example.com/","encrypted_content":"Ev0D","page_age":null}]}`
	failed := `{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}`
	fetched := `{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_2","content":{"type":"web_fetch_result","url":"https://example.com/","content":{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}}}}`
	fetchFailed := `{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_2","content":{"type":"web_fetch_tool_error","error_code":"url_not_accessible"}}`
	delta := func(stu string) string {
		return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9`+stu+`}}`)
	}
	for _, c := range []struct {
		name, body      string
		searches, fetch int
	}{
		{"cut after two results", start + use(1, "web_search") + result(2, found) + use(3, "web_search") + result(4, found), 2, 0},
		{"cut after a failed search", start + use(1, "web_search") + result(2, failed), 0, 0},
		{"cut after a fetch", start + use(1, "web_fetch") + result(2, fetched) + use(3, "web_fetch") + result(4, fetchFailed), 0, 1},
		{"cut before the result", start + use(1, "web_search"), 0, 0},
		{"the delta's count stands", start + use(1, "web_search") + result(2, found) + result(3, found) + delta(`,"server_tool_use":{"web_search_requests":1}`), 1, 0},
		{"a delta without one keeps the floor", start + use(1, "web_search") + result(2, found) + delta(``), 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, native := range []bool{false, true} {
				s := testStream(strings.NewReader(c.body))
				if native {
					s = Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(c.body), testEP)
				}
				u := lastUsage(t, s)
				if u == nil || u.WebSearches != c.searches || u.WebFetches != c.fetch || u.PromptTokens != 20 {
					t.Errorf("native %v: %+v, want %d searches, %d fetches", native, u, c.searches, c.fetch)
				}
			}
		})
	}
	// No usage before the result (a relay's start without one): the
	// floor is no usage of its own, which would read as a known count of
	// no tokens.
	s := testStream(strings.NewReader(ev("message_start", `{"type":"message_start","message":{"id":"m","content":[]}}`) + result(1, found)))
	if u := lastUsage(t, s); u != nil {
		t.Errorf("a usage without counts: %+v", u)
	}
}
