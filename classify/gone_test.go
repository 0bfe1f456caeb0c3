package classify

import "testing"

// A gone model is the model, not a feature of it: a capability gap the
// client's request ran into never reads as unavailable, which would cool
// the endpoint for everyone (found reviewing the fourth corpus round, whose
// "model … not currently supported" and "unsupported model" read these as
// gone, as "model … not supported" already did for the third).
func TestGoneModelIsTheModelNotAFeature(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"This model does not support image input. Image inputs are not currently supported.", "unknown"},
		{"Image input for this model is not currently supported", "unknown"},
		{"The model you selected does not support tools: tool calling is not supported", "unknown"},
		{"Unsupported model for this feature: logprobs", "unknown"},
		{"Streaming with the model is not supported", "unknown"},
		// The model itself: gone.
		{"Model gpt-x is not currently supported", "unavailable"},
		{"Unsupported model gpt-x, please use models API", "unavailable"},
		{"The model llama3:8b is not supported", "unavailable"},
		{"Invocation of model ID anthropic.claude-3-5-sonnet-20241022-v2:0 with on-demand throughput isn’t supported.", "unavailable"},
	} {
		v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"` + c.msg + `"}}`)})
		if v.Class.String() != c.want {
			t.Errorf("%q: %s (%s), want %s", c.msg, v.Class, v.Evidence, c.want)
		}
	}
}
