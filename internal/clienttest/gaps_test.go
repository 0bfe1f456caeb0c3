package clienttest

import (
	"bufio"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/door/gemini"
	"github.com/detour-llm/detour/internal/door/messages"
	"github.com/detour-llm/detour/internal/door/responses"
)

// knownGaps is what the door translations refuse today in each recorded
// request of a real client (the member named by the door's error, in
// order). docs/doors.md ("Real clients") explains each; the server wiring
// step closes them. TestRecordedRequestsThroughDoors fails when the list
// changes either way: a new refusal is a regression for that client, a
// gap closed should be struck from here and from the docs.
var knownGaps = map[string][]string{
	// Closed by the server wiring (docs/doors.md, "Real clients"): the
	// mid-conversation system message is translated, context_management
	// dropped for translated targets.
	"claude-code-" + ClaudeCodeVersion + ".jsonl":                      nil,
	"claude-code-" + ClaudeCodeVersion + "-route-model.jsonl":          nil,
	"claude-code-" + ClaudeCodeVersion + "-route-model-no-betas.jsonl": nil,
	// Two model calls: the tool call, then the answer to its result.
	"claude-code-" + ClaudeCodeVersion + "-tool.jsonl": nil,
	// Codex's catalogue models: the custom tool "exec" in additional_tools.
	"codex-" + CodexVersion + ".jsonl": {
		"input.0.tools.0.tools.0.type",
	},
	"codex-" + CodexVersion + "-route-model.jsonl":                {},
	"codex-" + CodexVersion + "-route-model-function-tools.jsonl": nil,
	// Two model calls: the namespaced tool call, then its output.
	"codex-" + CodexVersion + "-namespace-tool.jsonl": {},
	"codex-" + CodexVersion + "-tool.jsonl":           nil,
	// The JavaScript clients (node_test.go): nothing refused but the
	// item_reference the AI SDK's Responses provider sends for the first
	// answer in a conversation's second turn (ai.mjs responses_two_turns;
	// with store: false it sends the answer whole), and the Anthropic
	// SDK's tool runner's server-side thread (create, then continue; with
	// thread: false it sends the whole conversation).
	"node-openai-" + nodePinned("openai") + ".jsonl":                   nil,
	"node-anthropic-sdk-" + nodePinned("@anthropic-ai/sdk") + ".jsonl": {"thread", "thread"},
	"node-ai-" + nodePinned("ai") + ".jsonl":                           {"input.2"},
	// The frameworks (agents.mjs, langchain.mjs): nothing refused but the
	// Agents SDK's server-side chaining (agents.mjs responses_previous_id;
	// by default it sends the history whole). ChatAnthropic's jsonSchema
	// structured output (output_config.format) was refused until the
	// Messages door translated it.
	"node-openai-agents-" + nodePinned("@openai/agents") + ".jsonl":                                                            {"previous_response_id"},
	"node-langchain-openai-" + nodePinned("@langchain/openai") + "-anthropic-" + nodePinned("@langchain/anthropic") + ".jsonl": nil,
	// Gemini CLI (the Gemini door, docs/doors.md "Gemini CLI 0.61.0"):
	// nothing refused in its agent loop, the router's JSON call or a
	// read_file round trip. Dropped on the way, by the door's table:
	// generationConfig.topK (no Chat Completions member),
	// thinkingConfig (includeThoughts kept as the answer's thought
	// parts; thinkingLevel is Gemini's), the systemInstruction's role,
	// and the thoughtSignature the CLI puts beside each functionCall it
	// sends back (the recorder's answer had none, so it is Google's
	// placeholder "skip_thought_signature_validator"; a translated target
	// never reads it). The router's responseJsonSchema goes with
	// Gemini's upper-case type names as JSON Schema's (probe 69h).
	"gemini-cli-" + GeminiCLIVersion + ".jsonl":             nil,
	"gemini-cli-" + GeminiCLIVersion + "-route-model.jsonl": nil,
	"gemini-cli-" + GeminiCLIVersion + "-tool.jsonl":        nil,
	// The google_web_search tool is one more model call with Gemini's
	// own googleSearch tool: only a Gemini target can search, so a route
	// of OpenAI or Claude targets refuses it (400 naming the member) and
	// the CLI reports the search as failed; the agent's turn goes on.
	"gemini-cli-" + GeminiCLIVersion + "-web-search.jsonl": {"tools.0.googleSearch"},
}

// nodePinned is the version e2e/testdata/node/package.json pins for pkg.
func nodePinned(pkg string) string {
	pkgs, err := NodePackages()
	if err != nil {
		panic(err)
	}
	return pkgs[pkg]
}

// gap is one refusal by a door translation.
type gap struct{ field, message string }

var bracketIndex = regexp.MustCompile(`\[(\d+)\]`)

// dotted turns "input[0].type" into "input.0.type" so both doors' error
// paths read alike.
func dotted(p string) string { return bracketIndex.ReplaceAllString(p, ".$1") }

// strip removes what a refusal names from body: the deepest array element
// on the path when there is one (a message, a block, a tool, an item),
// else the member itself. It reports whether anything was removed.
func strip(body map[string]any, path string) bool {
	segs := strings.Split(path, ".")
	last := -1
	for i, s := range segs {
		if _, err := strconv.Atoi(s); err == nil {
			last = i
		}
	}
	if last < 0 {
		var cur any = body
		for _, s := range segs[:len(segs)-1] {
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			cur = m[s]
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m[segs[len(segs)-1]]; !ok {
			return false
		}
		delete(m, segs[len(segs)-1])
		return true
	}
	var parent any = body
	for _, s := range segs[:last-1] {
		switch v := parent.(type) {
		case map[string]any:
			parent = v[s]
		case []any:
			i, _ := strconv.Atoi(s)
			if i >= len(v) {
				return false
			}
			parent = v[i]
		default:
			return false
		}
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	key := segs[last-1]
	arr, ok := m[key].([]any)
	i, _ := strconv.Atoi(segs[last])
	if !ok || i >= len(arr) {
		return false
	}
	m[key] = slices.Delete(arr, i, i+1)
	return true
}

// translate runs body through the door for path and returns the refused
// member (dotted) and message, or ok with the canonical chat JSON.
func translate(path string, body []byte) (chatJSON []byte, g *gap) {
	if strings.HasPrefix(path, "/v1beta/models/") {
		return translateGemini(path, body)
	}
	switch path {
	case "/v1/messages":
		tr, err := messages.Translate(body)
		if err != nil {
			var e *messages.Error
			if errors.As(err, &e) {
				return nil, &gap{dotted(e.Field), e.Error()}
			}
			return nil, &gap{"", err.Error()}
		}
		return tr.Body, nil
	case "/v1/responses":
		tr, err := responses.Translate(body)
		if err != nil {
			var e *responses.Error
			if errors.As(err, &e) {
				return nil, &gap{dotted(e.Param), e.Error()}
			}
			return nil, &gap{"", err.Error()}
		}
		return tr.Chat, nil
	}
	return nil, nil
}

// translateGemini runs a Gemini request (path
// /v1beta/models/{model}:generateContent or :streamGenerateContent)
// through the Gemini door for the model the URL names.
func translateGemini(path string, body []byte) (chatJSON []byte, g *gap) {
	model, method, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
	tr, err := gemini.Translate(body, model, method == "streamGenerateContent")
	if err != nil {
		var e *gemini.Error
		if errors.As(err, &e) {
			return nil, &gap{dotted(e.Field), e.Error()}
		}
		return nil, &gap{"", err.Error()}
	}
	return tr.Body, nil
}

// isModelCall reports whether a recorded request is a model call a door
// translates: Messages, Responses, or Gemini's generateContent and
// streamGenerateContent.
func isModelCall(r Request) bool {
	if r.Method != "POST" {
		return false
	}
	if strings.HasPrefix(r.Path, "/v1beta/models/") {
		return strings.HasSuffix(r.Path, ":generateContent") || strings.HasSuffix(r.Path, ":streamGenerateContent")
	}
	return r.Path == "/v1/messages" || r.Path == "/v1/responses"
}

// gapsOf translates body, stripping each refused member in turn, and
// returns every refusal and the canonical JSON of what was left.
func gapsOf(t *testing.T, path string, raw json.RawMessage) ([]gap, []byte) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("recorded body is not a JSON object: %v", err)
	}
	var gaps []gap
	for range 50 {
		b, _ := json.Marshal(body)
		out, g := translate(path, b)
		if g == nil {
			return gaps, out
		}
		gaps = append(gaps, *g)
		if g.field == "" || !strip(body, g.field) {
			t.Fatalf("cannot strip %q to look further: %s", g.field, g.message)
		}
	}
	t.Fatal("more than 50 refusals")
	return nil, nil
}

// TestRecordedRequestsThroughDoors feeds every model call a real client
// made (e2e/testdata/clients) to the door translation for its path.
func TestRecordedRequestsThroughDoors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no recordings in " + fixtures)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			want, ok := knownGaps[name]
			if !ok {
				t.Fatalf("no knownGaps entry for %s", name)
			}
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 64<<20)
			var got []string
			calls := 0
			for sc.Scan() {
				var r Request
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					t.Fatal(err)
				}
				if !isModelCall(r) {
					continue
				}
				calls++
				gaps, out := gapsOf(t, r.Path, r.Body)
				for _, g := range gaps {
					t.Logf("%s refused %s: %s", r.Path, g.field, g.message)
					got = append(got, g.field)
				}
				var canon map[string]json.RawMessage
				if err := json.Unmarshal(out, &canon); err != nil {
					t.Fatalf("canonical body after stripping: %v", err)
				}
				t.Logf("canonical members: %v", slices.Sorted(maps.Keys(canon)))
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if calls == 0 {
				t.Fatal("no model call in the recording")
			}
			if !slices.Equal(got, want) {
				t.Errorf("refused members = %q, knownGaps says %q (update knownGaps and docs/doors.md)", got, want)
			}
		})
	}
}
