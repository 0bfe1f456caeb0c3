package clienttest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -record rewrites the recordings in e2e/testdata/clients from a run of
// the installed CLIs.
var recordFlag = flag.Bool("record", false, "write the recorded requests to e2e/testdata/clients")

const fixtures = "../../e2e/testdata/clients"

// writeFixture writes reqs as JSON lines, with the throwaway HOME path
// replaced by $HOME so the recording does not depend on the run.
func writeFixture(t *testing.T, name, home string, reqs []Request) {
	t.Helper()
	var buf bytes.Buffer
	for _, r := range reqs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.ReplaceAll(b, []byte(home), []byte("$HOME"))
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixtures, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestClaudeCodeOneTurn runs Claude Code with its default model and with
// a model name it does not know, as a Detour route name is (Claude Code
// shapes thinking, betas and context management by model).
func TestClaudeCodeOneTurn(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		opts          Options
	}{
		{"default-model", "claude-code-" + ClaudeCodeVersion + ".jsonl", Options{}},
		{"route-model", "claude-code-" + ClaudeCodeVersion + "-route-model.jsonl",
			Options{Args: []string{"--model", "detour-route"}}},
		// Without experimental betas: no context_management, all tools
		// sent eagerly, but still a mid-conversation system message.
		{"route-model-no-betas", "claude-code-" + ClaudeCodeVersion + "-route-model-no-betas.jsonl",
			Options{Args: []string{"--model", "detour-route"}, Env: []string{"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := NewRecorder("hi from the recorder", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			res := RunClaude(t, rec.URL, "say hi", tc.opts)
			reqs := rec.Requests()
			t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			for _, r := range reqs {
				t.Logf("%s %s?%s", r.Method, r.Path, r.Query)
			}
			if res.Err != nil {
				t.Fatalf("claude: %v", res.Err)
			}
			var out struct {
				Result  string `json:"result"`
				IsError bool   `json:"is_error"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
				t.Fatalf("claude --output-format json printed no JSON object: %v", err)
			}
			if out.IsError || !strings.Contains(out.Result, "hi from the recorder") {
				t.Errorf("claude's result = %q (is_error %v), want the recorder's reply", out.Result, out.IsError)
			}
			if !sawPost(reqs, "/v1/messages") {
				t.Errorf("no POST /v1/messages recorded")
			}
			if *recordFlag {
				writeFixture(t, tc.fixture, res.Home, reqs)
			}
		})
	}
}

// TestCodexOneTurn runs Codex with its default model (one in its own
// catalogue) and with a model name it does not know, as a Detour route
// name is: Codex shapes the request (tools, reasoning) by model.
func TestCodexOneTurn(t *testing.T) {
	for _, tc := range []struct {
		name, fixture string
		args          []string
	}{
		{"default-model", "codex-" + CodexVersion + ".jsonl", nil},
		{"route-model", "codex-" + CodexVersion + "-route-model.jsonl", []string{"-m", "detour-route"}},
		// What docs/doors.md recommends today: no multi-agent namespace
		// tool, no built-in web search.
		{"route-model-function-tools", "codex-" + CodexVersion + "-route-model-function-tools.jsonl",
			[]string{"-m", "detour-route", "--disable", "multi_agent", "-c", `web_search="disabled"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, err := NewRecorder("hi from the recorder", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			res := RunCodex(t, rec.URL, "say hi", Options{Args: tc.args})
			reqs := rec.Requests()
			t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			for _, r := range reqs {
				t.Logf("%s %s?%s", r.Method, r.Path, r.Query)
			}
			if res.Err != nil {
				t.Fatalf("codex: %v", res.Err)
			}
			if !strings.Contains(res.Stdout, "hi from the recorder") {
				t.Errorf("codex printed %q, want the recorder's reply", res.Stdout)
			}
			if !sawPost(reqs, "/v1/responses") {
				t.Errorf("no POST /v1/responses recorded")
			}
			if *recordFlag {
				writeFixture(t, tc.fixture, res.Home, reqs)
			}
		})
	}
}

func sawPost(reqs []Request, path string) bool {
	for _, r := range reqs {
		if r.Method == "POST" && r.Path == path {
			return true
		}
	}
	return false
}
