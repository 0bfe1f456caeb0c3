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
	rec, err := NewRecorder("done", &ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"echo clienttest-tool-ran","description":"Print a marker"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
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
	rec, err := NewRecorder("done", &ToolCall{Name: "exec_command", Input: json.RawMessage(`{"cmd":"echo clienttest-tool-ran"}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
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

// TestCodexNamespaceToolCall answers Codex with a function_call of a tool
// inside its "namespace" tool multi_agent_v1, carrying "namespace" on the
// item, and checks that Codex ran that tool (its own error for empty agent
// ids, not an unknown-tool error) and sent the call back with its
// namespace: what a door flattening namespace tools must map back.
func TestCodexNamespaceToolCall(t *testing.T) {
	rec, err := NewRecorder("done", &ToolCall{Name: "wait_agent", Namespace: "multi_agent_v1", Input: json.RawMessage(`{"timeout_ms":10}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	res := RunCodex(t, rec.URL, "wait", Options{Args: []string{"-m", "detour-route"}})
	reqs := rec.Requests()
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("codex: %v", res.Err)
	}
	if n := countPosts(reqs, "/v1/responses"); n < 2 {
		t.Fatalf("%d model calls, want the tool call and the answer to its result", n)
	}
	var body struct{ Input []map[string]any }
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var call, output map[string]any
	for _, it := range body.Input {
		switch it["type"] {
		case "function_call":
			call = it
		case "function_call_output":
			output = it
		}
	}
	if call == nil || call["namespace"] != "multi_agent_v1" || call["name"] != "wait_agent" {
		t.Errorf("function_call sent back = %v, want name wait_agent with namespace multi_agent_v1", call)
	}
	if out, _ := output["output"].(string); !strings.Contains(out, "agent ids") {
		t.Errorf("function_call_output = %q, want wait_agent's own answer", out)
	}
	if *recordFlag {
		writeFixture(t, "codex-"+CodexVersion+"-namespace-tool.jsonl", res.Home, reqs)
	}
}
