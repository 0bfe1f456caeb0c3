package classify_test

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/policy"
)

// TestReview46cBedrockGatesMoveOn (review46c, finding F1): round 46 made two
// Bedrock account gates `forbidden`. Both gates hold for one model on one
// AWS account (pydantic-ai#8170, hermes-agent#62965: on the same account
// claude-sonnet-5 answers 200 while claude-fable-5 answers the
// data-retention 400; obot#6747: the use-case form is per account), so the
// next endpoint of the target (another account, Anthropic's API, Vertex)
// serves the same request. The commit's own corpus note says "forbidden
// (cool the endpoint, move on)", but forbidden does not move on
// (internal/policy: no next endpoint, no next target): the request fails to
// the client with x-should-retry: false. Before round 46 these answers were
// `unavailable` and `unknown`, both of which moved to the next endpoint.
func TestReview46cBedrockGatesMoveOn(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	cases := []struct {
		name, src string
		status    int
		header    http.Header
		body      string
	}{
		{"use case form not submitted (404)", "https://github.com/obot-platform/obot/issues/6747", 404,
			http.Header{"X-Amzn-Errortype": {"ResourceNotFoundException"}},
			`{"message":"Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model. If you have already filled out the form, try again in 15 minutes."}`},
		{"data retention mode not available for this model (400)", "https://github.com/pydantic/pydantic-ai/issues/8170", 400,
			http.Header{"X-Amzn-Errortype": {"ValidationException"}},
			`{"message":"data retention mode 'default' is not available for this model"}`},
	}
	for _, c := range cases {
		v := classify.Classify(classify.Response{Status: c.status, Header: c.header, Body: []byte(c.body), Request: []byte(chat), Model: "m"})
		if r := policy.For(v.Class); !r.NextEndpoint {
			t.Errorf("%s (%s): got %s (%s), whose rule does not move to the target's next endpoint; "+
				"a gate on this Bedrock account must let another endpoint serve the request", c.name, c.src, v.Class, v.Evidence)
		}
	}
}
