package clienttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// countPosts counts the model calls to path in reqs.
func countPosts(reqs []Request, path string) int {
	n := 0
	for _, r := range reqs {
		if r.Method == "POST" && r.Path == path {
			n++
		}
	}
	return n
}

// TestClaudeCodeToolRoundTrip has the recorder answer Claude Code's first
// call with a Bash tool_use (echo, allowed on the command line) and checks
// that the second call carries the tool_result and ends the turn.
func TestClaudeCodeToolRoundTrip(t *testing.T) {
	rec, err := NewRecorder("done")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rec.Tool = &ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"echo clienttest-tool-ran","description":"Print a marker"}`)}
	res := RunClaude(t, rec.URL, "run echo", Options{Args: []string{"--allowedTools", "Bash(echo:*)"}})
	reqs := rec.Requests()
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("claude: %v", res.Err)
	}
	if n := countPosts(reqs, "/v1/messages"); n < 2 {
		t.Fatalf("%d model calls, want the tool call and the answer to its result", n)
	}
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), `"tool_result"`) || !strings.Contains(string(last.Body), "clienttest-tool-ran") {
		t.Errorf("the last call carries no tool_result with the command's output")
	}
	if *recordFlag {
		writeFixture(t, "claude-code-"+ClaudeCodeVersion+"-tool.jsonl", res.Home, reqs)
	}
}

// TestCodexToolRoundTrip does the same with Codex's exec_command function
// tool (the function-tools setup of TestCodexOneTurn).
func TestCodexToolRoundTrip(t *testing.T) {
	rec, err := NewRecorder("done")
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	rec.Tool = &ToolCall{Name: "exec_command", Input: json.RawMessage(`{"cmd":"echo clienttest-tool-ran"}`)}
	res := RunCodex(t, rec.URL, "run echo", Options{Args: []string{
		"-m", "detour-route", "--disable", "multi_agent", "-c", `web_search="disabled"`}})
	reqs := rec.Requests()
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("codex: %v", res.Err)
	}
	if n := countPosts(reqs, "/v1/responses"); n < 2 {
		t.Fatalf("%d model calls, want the tool call and the answer to its result", n)
	}
	last := reqs[len(reqs)-1]
	if !strings.Contains(string(last.Body), `"function_call_output"`) {
		t.Errorf("the last call carries no function_call_output")
	}
	if *recordFlag {
		writeFixture(t, "codex-"+CodexVersion+"-tool.jsonl", res.Home, reqs)
	}
}
