package server_test

import (
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// doorStackEvents is an OpenAI-dialect stream with every kind of delta the
// Messages and Responses doors translate: reasoning, text with escapes, a
// refusal, a tool call in pieces, a finish reason with vLLM's stop_reason,
// and usage with both details.
var doorStackEvents = []string{
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"reasoning_content":"think \"first\"\n"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":", w\u00f6rld\n\ttab \"q\""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"refusal":"no"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls","stop_reason":null}]}`,
	`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":3}}}`,
	`[DONE]`,
}

// messagesAgentTurn is a Messages request as a coding agent sends one: tools
// with schemas, and a tool's result of blocks within blocks.
const messagesAgentTurn = `{"model":"gpt","max_tokens":50,"stream":true,
 "system":[{"type":"text","text":"You are terse.","cache_control":{"type":"ephemeral"}}],
 "tools":[{"name":"get_weather","description":"Weather of a city","input_schema":{"type":"object","properties":{"city":{"type":"object","properties":{"name":{"type":"string"},"country":{"type":"object","properties":{"code":{"type":"string"}}}}}},"required":["city"]}}],
 "messages":[
  {"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":{"name":"Paris","country":{"code":"FR"}}}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"{\"temp\":{\"c\":21}}"}]},{"type":"text","text":"and again?"}]}]}`

// The Messages and Responses doors translate a stream from an upstream of
// another dialect chunk by chunk on the handler's goroutine: that too must
// fit the handler's 8 KiB stack (TestStreamHandlerStackStays8KiB; docs/
// benchmarks.md, "Round 6: the doors"). It failed before the doors read a
// chunk without encoding/json's nested decode, and for an agent's turn
// before the door's decode of the request ran off the handler's stack
// (offstack.Run). Skipped under -race.
func TestDoorStreamHandlerStackStays8KiB(t *testing.T) {
	if raceOn {
		t.Skip("the race detector doubles the stack guard: stacks grow sooner under it")
	}
	srv, grew := stackServer(t, doorStackEvents)
	// No collection may run while a request is measured: one could halve
	// the handler's stack, which moves it too. A cycle already under way
	// when collection is turned off still runs to its end (and shrinks
	// stacks), so one is finished first (a clean-clone run saw the stack
	// "grow" on a second request once in four).
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a collection could halve the stack, which moves it too
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, door := range []struct{ path, body, last, mustSee string }{
		{"/v1/messages", `{"model":"gpt","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			`data: {"type":"message_stop"}`, `"partial_json":"\"Paris\"}"`},
		{"/v1/responses", `{"model":"gpt","stream":true,"input":"hi"}`,
			`"type":"response.completed"`, `"arguments":"{\"city\":\"Paris\"}"`},
		// An agent's turn: a tool's result nests blocks in blocks, and the
		// door's decode of the request went ~0.9 KiB deeper a level.
		{"/v1/messages", messagesAgentTurn, `data: {"type":"message_stop"}`, `"partial_json":"\"Paris\"}"`},
	} {
		// The first request also fills encoding/json's caches, once a
		// process: it may grow its handler's stack.
		for i := range 3 {
			last, seen := streamed(t, c, srv.URL+door.path, door.body, door.mustSee)
			if !strings.Contains(last, door.last) || !seen {
				t.Fatalf("%s stream %d ended with %q (saw %s: %v)", door.path, i, last, door.mustSee, seen)
			}
			if g := <-grew; g && i > 0 {
				t.Errorf("%s stream %d: the handler's stack grew past 8 KiB", door.path, i)
			}
		}
	}
}
