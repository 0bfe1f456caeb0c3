package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Native dialects behind one OpenAI-compatible route: failover between
// Anthropic, Gemini and OpenAI fakes is invisible to the client, streamed or
// not. Upstream bodies come from the adapters' golden testdata.

func dialectCfg(route string) string {
	return `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: mixed, targets: ` + route + `}
`
}

func TestDialectsFailOverTransparently(t *testing.T) {
	anthropicOK := upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}
	geminiOK := upstreamtest.Step{Body: upstreamOf(t, "gemini", "response/basic.json")}
	anthropicStream := upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse")))}
	anthropicErrFirst := upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/error_before_content.sse")))}
	geminiStream := upstreamtest.Step{Events: sseBlocks(string(testdata(t, "gemini", "stream/basic.sse")))}
	for _, tc := range []struct {
		name, route    string
		stream         bool
		anthropic, gem upstreamtest.Step
		openai         upstreamtest.Step
		want           []string
		content, model string
	}{
		{"anthropic 529 → gemini", "[claude, gem, gpt]", false,
			corpus(t, "anthropic-overloaded-529"), geminiOK, ok("gpt-4o-mini", "gpt"),
			[]string{"claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gem/gemini ok done"},
			"Google's headquarters, also known as the Googleplex, is located in **Mountain View, California**.\n", "gemini-2.0-flash"},
		{"gemini 503 → openai", "[gem, gpt, claude]", false,
			anthropicOK, corpus(t, "gemini-model-overloaded-503"), ok("gpt-4o-mini", "from gpt"),
			[]string{"gem/gemini server_error retry", "gem/gemini server_error next_target", "gpt/openai ok done"},
			"from gpt", "gpt-4o-mini"},
		{"openai quota → anthropic", "[gpt, claude, gem]", false,
			anthropicOK, geminiOK, corpus(t, "openai-insufficient-quota-429"),
			[]string{"gpt/openai quota next_target", "claude/anthropic ok done"},
			"Hi! My name is Claude.", "claude-3-5-sonnet-20240620"},
		{"stream: anthropic error before content → gemini", "[claude, gem, gpt]", true,
			anthropicErrFirst, geminiStream, okStream("gpt-4o-mini", "gpt"),
			[]string{"claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gem/gemini ok done"},
			"The capital of Wyoming is **Cheyenne**.\n", ""},
		{"stream: gemini quota → anthropic", "[gem, claude, gpt]", true,
			anthropicStream, corpus(t, "gemini-resource-exhausted-no-details"), okStream("gpt-4o-mini", "gpt"),
			[]string{"gem/gemini quota next_target", "claude/anthropic ok done"},
			"Hello there!", ""},
		{"stream: openai 500 → anthropic", "[gpt, claude, gem]", true,
			anthropicStream, geminiStream, corpus(t, "openai-server-error-500"),
			[]string{"gpt/openai server_error retry", "gpt/openai server_error next_target", "claude/anthropic ok done"},
			"Hello there!", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(tc.anthropic), "gemini": script(tc.gem), "openai": script(tc.openai)})
			g := start(t, dialectCfg(tc.route), fs)
			extra := ""
			if tc.stream {
				extra = stream
			}
			r := g.post(t, "mixed", extra)
			r.wantStatus(t, 200)
			if tc.stream {
				content, done, errEv := r.streamed(t)
				if content != tc.content || !done || errEv {
					t.Errorf("client stream: content %q done %v error %v\n%s", content, done, errEv, r.Body)
				}
				if strings.Count(string(r.Body), `"role":"assistant"`) > 1 {
					t.Errorf("a failed attempt's events reached the client:\n%s", r.Body)
				}
			} else if content, model := r.content(t); content != tc.content || model != tc.model {
				t.Errorf("answer %q from %q", content, model)
			}
			wantSteps(t, g.recs.wait(t, 1), tc.want...)
			checkNative(t, fs, tc.stream)
		})
	}
}

// checkNative: every fake that was called got its own dialect's request.
func checkNative(t *testing.T, fs map[string]*upstreamtest.Server, stream bool) {
	t.Helper()
	for _, req := range fs["anthropic"].Requests() {
		if req.Path != "/v1/messages" || req.Header.Get("x-api-key") != secret || req.Header.Get("anthropic-version") == "" || req.Streamed() != stream {
			t.Errorf("anthropic got %s %v", req.Path, req.Header)
		}
	}
	for _, req := range fs["gemini"].Requests() {
		path := "/v1beta/models/gemini-2.0-flash:generateContent"
		if stream {
			path = "/v1beta/models/gemini-2.0-flash:streamGenerateContent"
		}
		if req.Path != path || req.Header.Get("x-goog-api-key") != secret || stream != strings.Contains(req.Query, "alt=sse") {
			t.Errorf("gemini got %s?%s %v", req.Path, req.Query, req.Header)
		}
	}
	for _, req := range fs["openai"].Requests() {
		if req.Path != "/chat/completions" || req.Header.Get("Authorization") != "Bearer "+secret || req.Streamed() != stream {
			t.Errorf("openai got %s %v", req.Path, req.Header)
		}
	}
}
