package classify

import "testing"

// Review 62l: unechoed (codescan.go) drops a structured code wherever the
// client's request holds the same bytes between two quotes — as a member
// name as well as a value, anywhere in the request. OpenRouter's
// error_types are common words that ordinary requests hold as keys:
// openai-python's model_dump writes "refusal": null on every assistant
// message of the history; Claude Code's Bash tool (and many MCP tools)
// has a "timeout" parameter; an MCP resource tool a "server" one; an HTTP
// tool an "authentication" one. Such a request hides OpenRouter's code,
// and the answer falls back to its status or its generic code.
func TestReview62lUnechoedHidesCommonWordCodes(t *testing.T) {
	const (
		refusalReq = `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"hello","refusal":null},{"role":"user","content":"more"}]}`
		timeoutReq = `{"model":"m","messages":[{"role":"user","content":"run ls"}],"tools":[{"type":"function","function":{"name":"Bash","parameters":{"type":"object","properties":{"command":{"type":"string"},"timeout":{"type":"number"}}}}}]}`
		serverReq  = `{"model":"m","messages":[{"role":"user","content":"list"}],"tools":[{"type":"function","function":{"name":"ListMcpResourcesTool","parameters":{"type":"object","properties":{"server":{"type":"string"}}}}}]}`
		authReq    = `{"model":"m","messages":[{"role":"user","content":"call it"}],"tools":[{"type":"function","function":{"name":"http","parameters":{"type":"object","properties":{"url":{"type":"string"},"authentication":{"type":"string"}}}}}]}`
	)
	for _, c := range []struct {
		name, req string
		status    int
		body      string
		stream    bool
		want      Class
	}{
		// codes62d_test.go's own cases, with an ordinary request beside them.
		{"refusal mid-stream, history dumped by openai-python", refusalReq, 200,
			"data: {\"error\":{\"code\":400,\"message\":\"error\",\"metadata\":{\"error_type\":\"refusal\"}},\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n", true, Refusal},
		{"refusal at a 400, history dumped by openai-python", refusalReq, 400,
			`{"error":{"code":400,"message":"Provider returned error","metadata":{"error_type":"refusal"}}}`, false, Refusal},
		{"timeout at a 400, a Bash tool with a timeout parameter", timeoutReq, 400,
			`{"error":{"code":400,"message":"Provider returned error","metadata":{"error_type":"timeout"}}}`, false, Timeout},
		{"server at a 400, an MCP tool with a server parameter", serverReq, 400,
			`{"error":{"code":400,"message":"Provider returned error","metadata":{"error_type":"server"}}}`, false, ServerError},
		{"revoked key on the Responses skin, an HTTP tool with an authentication parameter", authReq, 200,
			"data: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"Invalid credentials\"},\"error_type\":\"authentication\"}}\n\n", true, Auth},
	} {
		if v := classify56(c.status, c.body, "", c.stream); v.Class != c.want {
			t.Fatalf("%s: without the request %s (%s), want %s: the probe's premise is wrong", c.name, v.Class, v.Evidence, c.want)
		}
		v := classify56(c.status, c.body, c.req, c.stream)
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s: a member name of the request hid OpenRouter's error_type", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
