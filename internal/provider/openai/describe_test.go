package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/provider"
)

// OpenAI's Chat Completions caps tools[].function.description at 1024
// characters: a longer one is a 400 "Invalid 'tools[0].function.description':
// string too long. Expected a string with maximum length 1024, but got a
// string with length 3225 instead." (code string_above_max_length, as
// quoted in getsentry/sentry-mcp#106, OpenHands/OpenHands#4838,
// danny-avila/LibreChat#5741). Anthropic's Messages API and OpenAI's
// Responses API take longer ones, and Claude Code (Agent 3225, Bash 2110
// characters…) and Codex (update_goal 1541) send them; gptme/gptme#1697
// cuts them to 1024 for OpenAI. The upstream body keeps each description's
// first 1024 characters and carries the full text in a system message.

type fitBody struct {
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
}

func fitDecode(t *testing.T, b []byte) fitBody {
	t.Helper()
	var v fitBody
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

func fitTool(name, desc string) string {
	d, _ := json.Marshal(desc)
	return `{"type":"function","function":{"name":"` + name + `","description":` + string(d) +
		`,"parameters":{"type":"object","properties":{}}}}`
}

// Through NewRequest, as a translating door's request for Claude Code
// reaches an OpenAI target: the long descriptions are cut to 1024
// characters ending in "…", their full text is in a system message after
// the client's system and developer messages, and the short description,
// the parameters and every other member are as sent.
func TestNewRequestFitsLongToolDescriptions(t *testing.T) {
	agent := strings.Repeat("Launch a new agent to handle complex, multi-step tasks. ", 60) // 3360 characters
	bash := strings.Repeat("Executes a given bash command & <returns> its output.\n", 40)
	short := "Reads a file from the local filesystem."
	body := `{"model":"via-gpt","stream":true,"messages":[{"role":"system","content":"You are Claude Code."},` +
		`{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"},{"role":"system","content":"mid"}],` +
		`"tools":[` + fitTool("Agent", agent) + `,` + fitTool("Read", short) + `,` + fitTool("Bash", bash) + `],` +
		`"tool_choice":"auto","stream_options":{"include_usage":true}}`
	var got []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ = io.ReadAll(r.Body)
	}))
	defer srv.Close()
	send := func(translated bool) {
		t.Helper()
		req := request(t, body)
		req.Translated = translated
		hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: srv.URL, Model: "gpt-4o"}, req)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// A Chat Completions client's own body travels as sent, but for its
	// model: OpenAI judges its descriptions, as without Detour.
	send(false)
	if want := strings.Replace(body, `"via-gpt"`, `"gpt-4o"`, 1); string(got) != want {
		t.Errorf("a client's own chat body was changed:\n%.300s", got)
	}
	send(true)
	b := fitDecode(t, got)
	for i, want := range []string{agent, short, bash} {
		d := b.Tools[i].Function.Description
		if n := utf8.RuneCountInString(d); n > MaxDescription {
			t.Errorf("tools[%d] description: %d characters", i, n)
		}
		if utf8.RuneCountInString(want) <= MaxDescription {
			if d != want {
				t.Errorf("tools[%d] description changed: %q", i, d)
			}
			continue
		}
		if n := utf8.RuneCountInString(d); n != MaxDescription || !strings.HasSuffix(d, "…") ||
			!strings.HasPrefix(want, strings.TrimSuffix(d, "…")) {
			t.Errorf("tools[%d] description (%d characters): %.80q…%q", i, n, d, d[len(d)-20:])
		}
	}
	roles := []string{}
	for _, m := range b.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,developer,developer,user,system" {
		t.Fatalf("roles %v", roles)
	}
	full, _ := b.Messages[2].Content.(string)
	if !strings.Contains(full, "## Agent\n"+agent) || !strings.Contains(full, "## Bash\n"+bash) || strings.Contains(full, "## Read") {
		t.Errorf("system message: %.300q", full)
	}
	// Every other member, and every other message, byte for byte.
	var sent, orig map[string]json.RawMessage
	json.Unmarshal(got, &sent)
	json.Unmarshal([]byte(body), &orig)
	for k, v := range orig {
		if k != "model" && k != "tools" && k != "messages" && string(sent[k]) != string(v) {
			t.Errorf("%s changed: %s → %s", k, v, sent[k])
		}
	}
	if string(sent["model"]) != `"gpt-4o"` || len(sent) != len(orig) {
		t.Errorf("model %s, %d members (client sent %d)", sent["model"], len(sent), len(orig))
	}
	for _, m := range []string{`{"role":"system","content":"You are Claude Code."}`, `{"role":"user","content":"hi"}`,
		fitTool("Read", short), `"parameters":{"type":"object","properties":{}}`} {
		if !strings.Contains(string(got), m) {
			t.Errorf("upstream body lacks %s", m)
		}
	}
}

// Characters, not bytes: 1024 CJK characters (3072 bytes) are within the
// cap and untouched, as is a body without tools or with short ones (byte
// for byte); 1030 are cut at a character boundary to 1023 and "…".
func TestFitDescriptionsCountsCharacters(t *testing.T) {
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	for _, body := range []string{
		`{"model":"m",` + msgs + `}`,
		`{"model":"m",` + msgs + `,"tools":[` + fitTool("f", strings.Repeat("日", 1024)) + `]}`,
		`{"model":"m",` + msgs + `,"tools":[` + fitTool("f", strings.Repeat("a", 1024)) + `]}`,
		`{"model":"m", "tools" : [ ` + fitTool("f", "short") + ` ] , ` + msgs + `}`,
	} {
		if got := FitDescriptions([]byte(body)); string(got) != body {
			t.Errorf("changed:\n%s\n%s", body, got)
		}
	}
	// The common body (tools, none too long) costs no allocation.
	common := []byte(`{"model":"m",` + msgs + `,"tools":[` + fitTool("f", strings.Repeat("a", 1024)) + `,` + fitTool("g", "x") + `]}`)
	if n := testing.AllocsPerRun(100, func() { FitDescriptions(common) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
	long := strings.Repeat("日", 1030)
	got := FitDescriptions([]byte(`{"model":"m","tools":[` + fitTool("f", long) + `],` + msgs + `}`))
	b := fitDecode(t, got)
	d := b.Tools[0].Function.Description
	if !utf8.ValidString(d) || d != strings.Repeat("日", 1023)+"…" {
		t.Errorf("description: %d characters, valid UTF-8 %v, ends %q", utf8.RuneCountInString(d), utf8.ValidString(d), d[max(0, len(d)-9):])
	}
	// No system message: the full text opens the conversation.
	if len(b.Messages) != 2 || b.Messages[0].Role != "system" || b.Messages[1].Role != "user" ||
		!strings.HasSuffix(b.Messages[0].Content.(string), "## f\n"+long) {
		t.Errorf("messages %+v", b.Messages)
	}
}
