package classify

import "testing"

// Round 53's later rules (hunts 53d and 53e), each beside the near answers
// it must leave alone and an echo guard: the client's own words quoted back
// never steer the class.

// Ollama's parser failing on the model's own tool call (hunt 53e: "error
// parsing tool call: raw='…'" as gpt-oss's 500 and as a mid-stream NDJSON
// line; "XML syntax error on line 3: unexpected EOF", Go's encoding/xml
// under Ollama's XML tool-call parsers, as a mid-stream line; corpus
// ollama-500-error-parsing-tool-call-raw-harmony-reasoning-prose,
// ollama-ndjson-stream-error-xml-syntax-error-tool-call-unexpected-eof-200)
// is what this generation did, unknown, like "returned invalid tool call
// arguments". The XML wording only inside a 2xx (a stream's error line or
// event), where it can only be the generation: in a 5xx it may be a proxy
// that failed to parse an XML answer of its own upstream, the server's.
func TestRoundFiftyThreeBToolCallParse(t *testing.T) {
	run(t, []tc{
		{"Ollama's 500 on Harmony prose in the tool channel", 500, nil, `{"error":"error parsing tool call: raw='We need to list subscriptions and then resource groups in each subscription. (but the second ID is truncated; need full ID)...'"}`, false, "unknown", "phrase:error parsing tool call"},
		{"the same words as a mid-stream NDJSON line", 200, nil, `{"error":"error parsing tool call: raw='{\"reflection\":\"I have enough. I'll proceed to answer.', err=unexpected end of JSON input"}`, false, "unknown", "phrase:error parsing tool call"},
		{"the same words as an SSE error event", 200, nil, "data: {\"error\":{\"message\":\"error parsing tool call: raw='{\\\"a\\\":', err=unexpected end of JSON input\"}}\n\n", true, "unknown", "phrase:error parsing tool call"},
		{"Ollama's XML tool-call parser mid-stream", 200, nil, `{"error":"XML syntax error on line 3: unexpected EOF"}`, false, "unknown", "phrase:xml syntax error on line"},
		{"the XML words as an SSE error event", 200, nil, "data: {\"error\":{\"message\":\"XML syntax error on line 12: element <parameter> closed by </function>\"}}\n\n", true, "unknown", "phrase:xml syntax error on line"},
		{"the tool-call words in a 400", 400, nil, `{"error":"error parsing tool call: raw='{', err=unexpected end of JSON input"}`, false, "unknown", ""},

		// Near answers: the XML words in a 5xx stay the server's (a proxy
		// parsing its own upstream's XML); koboldcpp's "Error parsing
		// input." stays the server's; a 2xx error that parses nothing of
		// the model's stays the server's.
		{"the XML words in a 500 stay the server's", 500, nil, `{"error":"XML syntax error on line 1: unexpected EOF"}`, false, "server_error", "status:500"},
		{"the XML words in a 502 stay the server's", 502, nil, `{"message":"upstream: XML syntax error on line 1: invalid character entity &nbsp;"}`, false, "server_error", ""},
		{"Error parsing input stays the server's", 500, nil, `{"detail":{"msg":"Error parsing input.","type":"service_unavailable"}}`, false, "server_error", ""},
		{"an NDJSON error that is no parse stays the server's", 200, nil, `{"error":"an error was encountered while running the model: unexpected EOF"}`, false, "server_error", ""},
	})
	for _, c := range []struct {
		name, quote string
		status      int
		want        Class
	}{
		{"the client's tool-call words in a 500", "why: error parsing tool call", 500, ServerError},
		{"the client's tool-call words mid-stream", "why: error parsing tool call", 200, ServerError},
		{"the client's XML words mid-stream", "what is XML syntax error on line 3", 200, ServerError},
	} {
		req := `{"model":"m","messages":[{"role":"user","content":"` + c.quote + `"}]}`
		body := `{"error":"Content check failed: ` + c.quote + `"}`
		if v := Classify(Response{Status: c.status, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}

// A plan that does not serve the model, worded with the plan first (hunt
// 53d: MiniMax's 2061 "your current token plan not support model,
// MiniMax-M2.7-highspeed (2061)"; corpus
// minimax-500-2061-anthropic-token-plan-not-support-model): forbidden in a
// 4xx, like Z.ai's 1311 "Your current subscription plan does not yet
// include access to GLM-5" and the mirror of Ark's "does not support the
// coding plan feature". In a 5xx forbidden would stop the walk on an
// answer whose status says the endpoint failed: unavailable, the endpoint
// cools at once and the walk moves on (the Codex backend's "not supported
// when using … account", round 52).
func TestRoundFiftyThreeBPlanNotSupportModel(t *testing.T) {
	body := `{"type":"error","error":{"type":"api_error","message":"your current token plan not support model, MiniMax-M2.7-highspeed (2061)"},"request_id":"063806b8fedb37fa8a4c1c12e93c6463"}`
	run(t, []tc{
		{"MiniMax's 2061 at 400", 400, nil, body, false, "forbidden", "phrase:plan not support…model"},
		{"MiniMax's 2061 at 429", 429, nil, body, false, "forbidden", "phrase:plan not support…model"},
		{"MiniMax's 2061 at 403", 403, nil, body, false, "forbidden", ""},
		{"plan not supports model", 400, nil, `{"error":{"message":"current plan not supports model glm-5"}}`, false, "forbidden", "phrase:plan not support…model"},
		{"MiniMax's 2061 at 500", 500, nil, body, false, "unavailable", "phrase:plan not support…model"},
		{"MiniMax's 2061 at 503", 503, nil, body, false, "unavailable", "phrase:plan not support…model"},

		// Near answers: a plan that does not support a feature or a tool
		// (not the model) and a model that does not support a plan's
		// parameter stay where they were.
		{"a plan without a feature stays silent", 400, nil, `{"error":{"message":"your current plan not support web search"}}`, false, "unknown", "status:400"},
		{"a planning tool stays silent", 400, nil, `{"error":{"message":"planner: plan not supported for this request; the model will retry"}}`, false, "unknown", ""},
		{"the words far apart stay silent", 500, nil, `{"error":{"message":"batch plan not supported for this request body; see model docs"}}`, false, "server_error", "status:500"},
	})
	// The model Detour sent must be the one named: a tool's model is not
	// the endpoint's plan gate.
	req := `{"model":"MiniMax-M2.7-highspeed","messages":[{"role":"user","content":"hi"}]}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "MiniMax-M2.7-highspeed"}); v.Class != Forbidden {
		t.Errorf("our model named: %s (%s), want forbidden", v.Class, v.Evidence)
	}
	if v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"token plan not support model, other-model (2061)"}}`), Request: []byte(req), Model: "MiniMax-M2.7-highspeed"}); v.Class == Forbidden {
		t.Errorf("another model named: %s (%s), want not forbidden", v.Class, v.Evidence)
	}
	// Echo guard: the client's words quoted back decide nothing.
	quote := "why does it say token plan not support model"
	ereq := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}]}`
	ebody := `{"error":{"message":"Content check failed: ` + quote + `"}}`
	for _, st := range []int{400, 500} {
		v := Classify(Response{Status: st, Body: []byte(ebody), Request: []byte(ereq), Model: "m"})
		if v.Class == Forbidden || v.Class == Unavailable {
			t.Errorf("the client's plan words quoted back at %d: %s (%s)", st, v.Class, v.Evidence)
		}
	}
}
