package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// c47cRecorded is the body of the first request of a recording in
// testdata/clients (README.md there), its model replaced, and the
// descriptions of its tools by name (Messages and Responses tools carry
// them at the top level).
func c47cRecorded(t *testing.T, file, model string) (string, map[string]string) {
	t.Helper()
	b, err := os.ReadFile("testdata/clients/" + file)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	var rec struct {
		Body map[string]any `json:"body"`
	}
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	rec.Body["model"] = model
	descs := map[string]string{}
	tools, _ := rec.Body["tools"].([]any)
	for _, tl := range tools {
		m, _ := tl.(map[string]any)
		name, _ := m["name"].(string)
		desc, _ := m["description"].(string)
		descs[name] = desc
	}
	out, err := json.Marshal(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), descs
}

// c47cChatBody is what the fake OpenAI reads of a chat request.
type c47cChatBody struct {
	Tools []struct {
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// c47cOpenAIDescriptionCap answers as OpenAI's Chat Completions does a
// tools[].function.description over 1024 characters: 400
// string_above_max_length, in the wording quoted in getsentry/sentry-mcp#106
// and OpenHands/OpenHands#4838 ("Invalid 'tools[0].function.description':
// string too long. Expected a string with maximum length 1024, but got a
// string with length 3225 instead."); else a chat answer.
func c47cOpenAIDescriptionCap(r upstreamtest.Request) upstreamtest.Step {
	var b c47cChatBody
	_ = json.Unmarshal(r.Body, &b)
	for i, tl := range b.Tools {
		if n := utf8.RuneCountInString(tl.Function.Description); n > 1024 {
			param := "tools[" + itoa47c(i) + "].function.description"
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"Invalid '` + param +
				`': string too long. Expected a string with maximum length 1024, but got a string with length ` + itoa47c(n) +
				` instead.","type":"invalid_request_error","param":"` + param + `","code":"string_above_max_length"}}`}
		}
	}
	if r.Streamed() {
		return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "hello ", "there")}
	}
	return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "hello there")}
}

func itoa47c(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Claude Code (Messages door; 6 of its 12 tools have descriptions of
// 1,417–3,496 characters, Anthropic takes them) and Codex (Responses door;
// update_goal, 1,541 characters, OpenAI's Responses API takes it) on a
// route of an OpenAI Chat Completions target: docs/doors.md promises both
// work there ("an overloaded Claude fails over to GPT mid-session"; Codex
// with a route name through the chat translation). Chat Completions caps a
// description at 1024 characters, so the target gets each long one cut to
// 1024 characters, and its full text in a system message, so the model
// still reads all of it; shorter descriptions reach it as sent.
func TestClients47AgentsLongToolDescriptionsToOpenAIChat(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    func(_ int, r upstreamtest.Request) upstreamtest.Step { return c47cOpenAIDescriptionCap(r) },
		"anthropic": script(ok("x", "x")), "gemini": script(ok("x", "x")),
	})
	g := start(t, clientsCfg, fs)
	for _, c := range []struct {
		client, file, path string
		headers            []string
		long               []string // tools the recording describes in over 1024 characters
	}{
		{"Claude Code", "claude-code-2.1.337-tool.jsonl", "/v1/messages?beta=true", claudeCodeHeaders,
			[]string{"Agent", "Bash", "ListAgents", "ScheduleWakeup", "Skill", "Workflow"}},
		{"Codex", "codex-0.171.0-route-model-function-tools.jsonl", "/v1/responses", []string{"Authorization", "Bearer k"},
			[]string{"update_goal"}},
	} {
		body, descs := c47cRecorded(t, c.file, "via-gpt")
		before := fs["openai"].Calls()
		r := g.raw(t, http.MethodPost, c.path, body, c.headers...)
		if r.Status != 200 || strings.Contains(string(r.Body), "event: error") {
			t.Errorf("%s: %d %.600s", c.client, r.Status, r.Body)
		}
		reqs := fs["openai"].Requests()
		if len(reqs) != before+1 {
			t.Fatalf("%s: %d calls to OpenAI, want 1", c.client, len(reqs)-before)
		}
		var sent c47cChatBody
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &sent); err != nil {
			t.Fatal(err)
		}
		var system strings.Builder
		for _, m := range sent.Messages {
			if m.Role == "system" || m.Role == "developer" {
				var s string
				_ = json.Unmarshal(m.Content, &s)
				system.WriteString(s)
			}
		}
		long := 0
		for _, tl := range sent.Tools {
			name, got := tl.Function.Name, tl.Function.Description
			want, known := descs[name]
			if !known {
				continue // a tool the door adds or renames
			}
			if utf8.RuneCountInString(want) <= 1024 {
				if got != want {
					t.Errorf("%s: %s's description changed", c.client, name)
				}
				continue
			}
			long++
			if utf8.RuneCountInString(got) > 1024 || !strings.HasSuffix(got, "…") || !strings.HasPrefix(want, strings.TrimSuffix(got, "…")) {
				t.Errorf("%s: %s's description (%d characters) is not the first 1024 of its text", c.client, name, utf8.RuneCountInString(got))
			}
			if !strings.Contains(system.String(), "## "+name+"\n"+want) {
				t.Errorf("%s: the system messages lack %s's full description", c.client, name)
			}
		}
		if long != len(c.long) {
			t.Errorf("%s: %d long descriptions reached OpenAI, want %d (%v)", c.client, long, len(c.long), c.long)
		}
	}
}
