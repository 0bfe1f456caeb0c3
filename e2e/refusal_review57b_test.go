package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReview57bRefusalKeepsContentFilterCode: round 57 (94b88e0) changed
// a refusal's code at the OpenAI doors from content_filter to
// content_policy_violation so that LiteLLM's text check ("invalid_request_error"
// and "content_policy_violation" anywhere in str(exception)) matches. But
// Microsoft's clients branch on the code itself: Semantic Kernel's OpenAI
// connector and Microsoft Agent Framework's OpenAIChatClient / responses
// client raise their content-filter exception only on
//
//	except BadRequestError as ex:
//	    if ex.code == "content_filter": raise OpenAIContentFilterException(...)
//
// (microsoft/agent-framework python/packages/core/agent_framework/openai/_chat_client.py,
// microsoft/semantic-kernel python/semantic_kernel/connectors/ai/open_ai/services/open_ai_handler.py),
// and the Azure examples of openai/openai-cookbook check err["error"]["code"] == "content_filter".
// Those clients now get a plain ServiceResponseException. LiteLLM's check reads the
// whole error text, so both are met by type invalid_request_error, code
// content_filter, and "content_policy_violation" elsewhere in the body.
func TestReview57bRefusalKeepsContentFilterCode(t *testing.T) {
	g := start(t, p57bCfg, fakes(t, p57bScripts(t)))
	for _, route := range []string{"claude", "gem3", "ds"} {
		for _, door := range []struct{ path, body string }{
			{"/v1/chat/completions", `{"model":"` + route + `","messages":[{"role":"user","content":"hi"}]}`},
			{"/v1/responses", `{"model":"` + route + `","input":"hi"}`},
		} {
			r := g.raw(t, "POST", door.path, door.body)
			var env struct {
				Error struct{ Type, Code string } `json:"error"`
			}
			_ = json.Unmarshal(r.Body, &env)
			s := string(r.Body)
			if r.Status != 400 || env.Error.Code != "content_filter" || !strings.Contains(s, "invalid_request_error") || !strings.Contains(s, "content_policy_violation") {
				t.Errorf("%s route %s: %d code %q type %q: Agent Framework / Semantic Kernel raise their content-filter exception only on code content_filter (LiteLLM needs both words anywhere): %s",
					door.path, route, r.Status, env.Error.Code, env.Error.Type, s)
			}
		}
	}
}
