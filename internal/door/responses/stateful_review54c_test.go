package responses

import "testing"

// Review 54c: docs/doors.md ("Refused") says a reference to a reasoning
// item ("rs_…") "is dropped rather than refused", with no route named, and
// translateInput drops it (probe 54b: the Vercel AI SDK's default Responses
// model, store left on, sends every earlier reasoning item back as
// {"type":"item_reference","id":"rs_…"}). But on a route with any
// responses: true target the door calls Stateful instead of Translate, and
// Stateful's itemReference still refuses it: the AI SDK's Gemini tool loop
// that 54b mended still ends at step two on a route such as
// [gemini, openai-responses].
func TestReview54cStatefulDropsReasoningReference(t *testing.T) {
	body := []byte(`{"model":"r","input":[{"role":"user","content":"weather in Paris?"},{"type":"item_reference","id":"rs_68a1"},{"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},{"type":"function_call_output","call_id":"call_1","output":"18C"}]}`)
	if _, err := Translate(body); err != nil {
		t.Fatalf("Translate refused it: %v", err)
	}
	if e := Stateful(body); e != nil {
		t.Errorf("Stateful (a route with a responses: true target) refuses what Translate drops: %s (param %s)", e.Message, e.Param)
	}
}
