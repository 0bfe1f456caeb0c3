package dispatch

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/provider"
)

// The bounds on an answer's counts (reviews 62b, 62e): sixteen times the
// request's bytes and 2^24 more of prompt; the answer's bytes and a
// reasoning room for each choice the request asks for. Nothing a client
// writes to mean a limit (max_tokens, llama.cpp's n_predict) lowers them.
func TestCeilings(t *testing.T) {
	for _, c := range []struct {
		body           string
		answer         int64
		prompt, output int
	}{
		{`{"max_tokens":16}`, 300, promptBeyondBody + bodyReads*17, 300 + reasoningRoom},
		{`{"max_tokens":1,"n_predict":4096}`, 20000, promptBeyondBody + bodyReads*33, 20000 + reasoningRoom},
		{`{"n":3}`, 0, promptBeyondBody + bodyReads*7, 3 * reasoningRoom},
		{`{"n":100000}`, 10, promptBeyondBody + bodyReads*12, 10 + maxChoices*reasoningRoom},
		{`{"n":"3"}`, 10, promptBeyondBody + bodyReads*9, 10 + reasoningRoom},
		{``, 10, maxCount, maxCount},
	} {
		b := []byte(c.body)
		if p, o, capped := withinCeilings(b, c.answer, c.prompt, c.output); capped || p != c.prompt || o != c.output {
			t.Errorf("%s (%d answered): prompt %d and output %d read past their bounds (%d, %d)", c.body, c.answer, c.prompt, c.output, p, o)
		}
		if c.prompt < maxCount {
			if p, o, capped := withinCeilings(b, c.answer, c.prompt+1, c.output+1); !capped || p != c.prompt || o != c.output {
				t.Errorf("%s (%d answered): prompt %d and output %d billed as %d, %d (capped %v), want their bounds %d, %d", c.body, c.answer, c.prompt+1, c.output+1, p, o, capped, c.prompt, c.output)
			}
		}
	}
}

// A count past what an answer can have is no count: Detour's estimate
// stands in for it and the record says capped (review 62b); an honest
// answer's counts, reasoning it does not show included, are kept whole,
// whatever max_tokens the client wrote (review 62e).
func TestAccountCapsImpossibleCounts(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":1,"n_predict":4096,"messages":[{"role":"user","content":"hi"}]}`)
	const answer = 16384 // bytes the upstream sent
	for _, c := range []struct {
		name               string
		u                  provider.Usage
		prompt, completion int
		capped             bool
	}{
		{"honest, past the client's max_tokens", provider.Usage{PromptTokens: 9, CompletionTokens: 4096, TotalTokens: 4105}, 9, 4096, false},
		{"reasoning it does not show", provider.Usage{PromptTokens: 9, CompletionTokens: 100000, TotalTokens: 100009,
			CompletionTokensDetails: &provider.OutputDetails{ReasoningTokens: 96000}}, 9, 100000, false},
		{"reasoning past completion in the total", provider.Usage{PromptTokens: 9, CompletionTokens: 16, TotalTokens: 30025}, 9, 30016, false},
		{"unsigned -1", provider.Usage{PromptTokens: 9, CompletionTokens: 4294967295, TotalTokens: 4294967304}, 9, answer / 4, true},
		{"total past any", provider.Usage{PromptTokens: 9, CompletionTokens: 3, TotalTokens: 1 << 53}, 9, answer / 4, true},
		{"prompt past any", provider.Usage{PromptTokens: 1 << 40, CompletionTokens: 3, TotalTokens: 1<<40 + 3}, inputEstimate(body), 3, true},
	} {
		var a decision.Attempt
		account(&a, &config.Target{}, &outcome{usage: &c.u, ok: true, billable: true, answerBytes: answer}, nil, body)
		if u := a.Usage; u == nil || u.PromptTokens != c.prompt || u.CompletionTokens != c.completion || u.Capped != c.capped ||
			u.TotalTokens > u.PromptTokens+u.CompletionTokens {
			t.Errorf("%s: usage %+v, want prompt %d completion %d capped %v", c.name, a.Usage, c.prompt, c.completion, c.capped)
		}
	}
}

// A broken server counts past its answers on every one: the warning is one
// line a minute a provider, each record saying capped.
func TestCappedUsageIsLoggedOnceAMinute(t *testing.T) {
	var buf bytes.Buffer
	d := &Dispatcher{log: slog.New(slog.NewTextHandler(&buf, nil))}
	p := &providerRT{}
	e := &endpointRT{key: health.Key{Target: "t", Provider: "p"}, prov: p}
	for i := range 3 {
		w := &walk{d: d, rec: &decision.Decision{ID: fmt.Sprint("r", i)}}
		w.noteCapped(e)
	}
	if n := strings.Count(buf.String(), "upstream usage past"); n != 1 {
		t.Fatalf("%d lines for three capped answers in a minute, want 1:\n%s", n, buf.String())
	}
	p.cappedAt.Store(time.Now().Unix() - 61)
	(&walk{d: d, rec: &decision.Decision{ID: "later"}}).noteCapped(e)
	if n := strings.Count(buf.String(), "upstream usage past"); n != 2 || !strings.Contains(buf.String(), "decision=later") {
		t.Fatalf("a minute later: %d lines, want 2 naming the later decision:\n%s", n, buf.String())
	}
}

// Every attempt's usage reads its bounds: no allocation where the body
// has no n or a plain one (a first version decoded n with encoding/json
// and took three allocations a request: docs/benchmarks.md, "Round 31").
func TestCeilingsAllocateNothing(t *testing.T) {
	for _, body := range []string{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, `{"model":"m","n":2,"messages":[]}`} {
		b := []byte(body)
		if n := testing.AllocsPerRun(100, func() { withinCeilings(b, 100, 10, 1<<30) }); n != 0 {
			t.Errorf("%s: %v allocations, want 0", body, n)
		}
	}
}

// A request that has the upstream run tools of its own (a hosted MCP
// tool, Anthropic's server tools, MCP servers) can honestly pass the
// bounds: its count past them is billed at the bound, never at Detour's
// estimate, so a client cannot pay $0.02 for $10 of work by pushing its
// count past the bound (review 63a), and a count just past it never costs
// less than one just inside it.
func TestServerWorkPastTheBoundsIsBilledAtThem(t *testing.T) {
	const answer = 16384
	for _, body := range []string{
		`{"model":"m","input":"summarise","tools":[{"type":"mcp","server_label":"docs","server_url":"https://mcp.example/"}],"max_tool_calls":20}`,
		`{"model":"m","input":"q","tools":[{"type":"web_search_preview"},{"type":"file_search","vector_store_ids":["vs_1"]}]}`,
		`{"model":"m","max_tokens":9,"messages":[],"tools":[{"type":"web_fetch_20250910","name":"web_fetch"},{"type":"code_execution_20250825","name":"code_execution"}]}`,
		`{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":"q"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`,
		`{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":"q"}],"mcp_servers":[{"type":"url","url":"https://mcp.example/","name":"d"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"web_search_options":{}}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"search_parameters":{"mode":"on"}}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"plugins":[{"id":"web"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"googleSearch":{}}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"googleMaps":{}},{"retrieval":{"vertexAiSearch":{}}}]}`,
		`{"model":"m","input":"q","tools":[{"type":"collections_search","collection_ids":["c1"]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"enable_search":true}`,
		`{"model":"m","prompt":{"id":"pmpt_1","version":"2"},"input":"q"}`,
	} {
		b := []byte(body)
		promptBound := promptBeyondBody + bodyReads*len(b)
		for _, c := range []struct {
			name               string
			u                  provider.Usage
			prompt, completion int
			capped             bool
		}{
			{"just inside", provider.Usage{PromptTokens: promptBound, CompletionTokens: 3}, promptBound, 3, false},
			{"just past", provider.Usage{PromptTokens: promptBound + 1, CompletionTokens: 3}, promptBound, 3, true},
			{"far past", provider.Usage{PromptTokens: 18_000_000 + promptBound, CompletionTokens: 4294967295}, promptBound, answer + reasoningRoom, true},
		} {
			var a decision.Attempt
			account(&a, &config.Target{}, &outcome{usage: &c.u, ok: true, billable: true, answerBytes: answer}, nil, b)
			if u := a.Usage; u == nil || u.PromptTokens != c.prompt || u.CompletionTokens != c.completion || u.Capped != c.capped {
				t.Errorf("%.60s: %s: usage %+v, want prompt %d completion %d capped %v", body, c.name, a.Usage, c.prompt, c.completion, c.capped)
			}
		}
	}
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[{"type":"function","function":{"name":"f"}}]}`,
		`{"model":"m","input":"q","tools":[{"type":"custom","name":"apply_patch"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"q"}],"tools":[]}`,
		`{"model":"m","input":"q","tools":[{"type":"Function","name":"f"}]}`,
		`{"model":"m","max_tokens":9,"messages":[],"tools":[{"name":"f","input_schema":{"type":"object"}}]}`,
		`{"model":"m","input":"q","previous_response_id":"resp_1"}`,
		// Typed tools the client runs and answers itself (review 63l).
		`{"model":"m","max_tokens":9,"messages":[],"tools":[{"type":"computer_20250124","name":"computer"},{"type":"bash_20250124","name":"bash"},{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"type":"memory_20250818","name":"memory"}]}`,
		`{"model":"m","input":"q","tools":[{"type":"computer_use_preview"},{"type":"local_shell"},{"type":"shell"},{"type":"apply_patch"}]}`,
		`{"model":"m","messages":[],"enable_search":false,"plugins":[]}`,
	} {
		if serverWork([]byte(body)) {
			t.Errorf("%s: read as server work", body)
		}
	}
}
