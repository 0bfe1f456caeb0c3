package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
)

// Review 67h: an Anthropic-dialect upstream's error.details reach the
// Messages client member by member, by shape alone. A member naming the
// operator's account (a workspace, a project number, a key's id, an AWS
// account) is no size or path the client acts on: the message scrubber
// reads an account id by the words around it, and a JSON number or a
// prefixed id under a member name has none.
func TestReview67hDetailsHideTheAccount(t *testing.T) {
	e := &endpointRT{prov: &providerRT{cfg: &config.Provider{Dialect: classify.Anthropic}}}
	for _, m := range []string{
		`"project_number":391029737820`,
		`"project":"acme-prod-llm"`,
		`"workspace_id":"wrkspc_01AbCdEfGhIjKlMnOpQrStUv"`,
		`"api_key_id":"apikey_01Rj2N8SVvo6BePZj99NhmiT"`,
		`"aws_account_id":123456789012`,
		`"organization_id":"a22cf6e6-a940-4fff-8c4c-1580816ac7be"`,
		`"user_id":"user_2abcdefghijklmnop"`,
	} {
		body := `{"type":"error","error":{"type":"invalid_request_error","message":"x","details":{"error_code":"image_dimensions_too_large","max_side_length_pixels":8000,` + m + `}}}`
		got := string(upstreamDetails(e, []byte(body)))
		if got != `{"max_side_length_pixels":8000}` {
			t.Errorf("%s: details %s", m, got)
		}
	}
}

// Review 67h: an OpenAI-dialect relay's code and param reach the client
// only where they are OpenAI's kind: LiteLLM's "param": "None" (str(None))
// names no member, and new-api's, one-api's and LiteLLM's "400", "429" or
// "500" is a status, not a code (a bad_request told as code "500" or "429"
// reads as a server error or a throttle to a client that switches on it).
func TestReview67hOpenAICodeIsNoStatus(t *testing.T) {
	e := &endpointRT{prov: &providerRT{cfg: &config.Provider{Dialect: classify.OpenAI}}}
	for body, want := range map[string][2]string{
		`{"error":{"message":"x","type":"None","param":"None","code":"429"}}`:                                       {"", ""},
		`{"error":{"message":"x","type":"invalid_request_error","param":"null","code":"500"}}`:                      {"", ""},
		`{"error":{"message":"x","type":"invalid_request_error","param":"400","code":"400"}}`:                       {"", ""},
		`{"error":{"message":"x","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`: {"unsupported_value", "temperature"},
	} {
		if c, p := openaiError(e, []byte(body)); c != want[0] || p != want[1] {
			t.Errorf("%s: code %q param %q, want %q %q", body, c, p, want[0], want[1])
		}
	}
}

// Last look 67i's leftover: an id under a member name that says nothing of
// the account ("resource", "target") passed by the shape of its value. A
// value is kept only where it is no id: a string with no run of letters
// and digits longer than 20 and fewer than 6 digits, a number below a
// billion (sizes, counts, limits).
func TestRound67DetailsHideIdsUnderNeutralNames(t *testing.T) {
	e := &endpointRT{prov: &providerRT{cfg: &config.Provider{Dialect: classify.Anthropic}}}
	for _, m := range []string{
		`"resource":"wrkspc_01AbCdEfGhIjKlMnOpQrStUv"`,
		`"target":391029737820`,
		`"ref":"123456789"`,
		`"paths":["messages.0.content.1","apikey_01Rj2N8SVvo6BePZj99NhmiT"]`,
	} {
		body := `{"type":"error","error":{"type":"invalid_request_error","message":"x","details":{"error_code":"image_dimensions_too_large","max_side_length_pixels":8000,` + m + `}}}`
		if got := string(upstreamDetails(e, []byte(body))); got != `{"max_side_length_pixels":8000}` {
			t.Errorf("%s: details %s", m, got)
		}
	}
	// What a client acts on still passes.
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"x","details":{"error_code":"image_dimensions_too_large","max_side_length_pixels":8000,"paths":["messages.0.content.1.source"],"limit_kind":"max_side_length"}}}`
	if got := string(upstreamDetails(e, []byte(body))); got != `{"limit_kind":"max_side_length","max_side_length_pixels":8000,"paths":["messages.0.content.1.source"]}` {
		t.Errorf("details %s", got)
	}
}
