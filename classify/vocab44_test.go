package classify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// sdkNames are the OpenAI SDKs' exception names LiteLLM names an
// upstream's 4xx by (sdkErrorStatus), by status.
var sdkNames = map[int]string{400: "BadRequestError", 401: "AuthenticationError", 403: "PermissionDeniedError",
	404: "NotFoundError", 422: "UnprocessableEntityError", 429: "RateLimitError"}

// TestVocabularyRoundFortyFourNamedStatus: hunt 43f #15. A user relies on
// a relay's 5xx that quotes an upstream's 4xx under the SDK exception name
// of that 4xx (LiteLLM's mid-stream fallback: "litellm.ServiceUnavailableError:
// litellm.MidStreamFallbackError: litellm.BadRequestError: …Exception
// BadRequestError - {…}", sent as a 503) being read as that 4xx: a client's
// bad tool schema must not count as the relay's server_error (which cools
// it for everyone). Every real 4xx JSON answer of the corpus whose status
// has such a name gets, so quoted under a 503 or a 500, the verdict it gets
// quoted under the relay's matching 4xx.
func TestVocabularyRoundFortyFourNamedStatus(t *testing.T) {
	wrap := func(lead, inner string, status int) string {
		m, _ := json.Marshal(lead + inner)
		return fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, m, status)
	}
	n := 0
	for name, c := range loadCorpus(t) {
		sdk, ok := sdkNames[c.Status]
		if !ok || c.Stream || c.Miss != "" || len(c.Headers) > 0 || !json.Valid([]byte(c.Body)) || c.Provider == "openrouter" || c.Provider == "litellm" {
			continue
		}
		// A JSON string is no answer quoted whole, and what follows "failed
		// to parse" is cut before it is read (facts.go, quotedCut): the
		// client may have written it.
		if b := strings.TrimSpace(c.Body); b[0] != '{' && b[0] != '[' || strings.Contains(strings.ToLower(b), "failed to parse") {
			continue
		}
		lead := "litellm." + sdk + ": UpstreamException " + sdk + " - "
		r := c.response()
		r.Body = []byte(wrap(lead, c.Body, c.Status))
		want := Classify(r)
		for _, st := range []int{500, 503} {
			r.Status = st
			r.Body = []byte(wrap("litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: "+lead, c.Body, st))
			if got := Classify(r); got.Class != want.Class || got.Failed != want.Failed {
				t.Errorf("%s quoted as %s under a %d: %s (%s); under its own %d, %s (%s)", name, sdk, st, got.Class, got.Evidence, c.Status, want.Class, want.Evidence)
			}
		}
		n++
	}
	if n < 400 {
		t.Fatalf("only %d corpus answers quoted", n)
	}
}

// TestVocabularyRoundFortyFourNamedStatusNearMisses: the name that counts
// is the last one before the quoted answer, and only the SDKs' 4xx names;
// the client's own text is no relay's.
func TestVocabularyRoundFortyFourNamedStatusNearMisses(t *testing.T) {
	invalid := corpusBody(t, "anthropic-400-tools-tool-names-must-be-unique")
	m := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lead := "litellm.ServiceUnavailableError: litellm.MidStreamFallbackError: litellm.BadRequestError: AnthropicException BadRequestError - "
	req, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": "Explain: " + lead + invalid}}})
	runHostile(t, []hostileCase{
		{name: "a 4xx name before the quoted answer", status: 503, want: BadRequest,
			body: `{"error":{"message":` + m(lead+invalid) + `,"code":503}}`},
		{name: "only a 5xx name before it", status: 503, want: ServerError,
			body: `{"error":{"message":` + m("litellm.ServiceUnavailableError: AnthropicException ServiceUnavailableError - "+invalid) + `,"code":503}}`},
		{name: "a 4xx name earlier, a 5xx name last", status: 503, want: ServerError,
			body: `{"error":{"message":` + m("litellm.BadRequestError: litellm.ServiceUnavailableError: AnthropicException - "+invalid) + `,"code":503}}`},
		{name: "a name that is no SDK's", status: 503, want: ServerError,
			body: `{"error":{"message":` + m("litellm.ServiceUnavailableError: AnthropicException BadError - "+invalid) + `,"code":503}}`},
		// The quoted answer's own word that its upstream failed outweighs
		// the name (review 45a).
		{name: "a 4xx name over a Google 500", status: 503, want: ServerError,
			body: `{"error":{"message":` + m(lead+`{"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}`) + `,"code":503}}`},
		{name: "a 4xx name over a Google 503", status: 503, want: ServerError,
			body: `{"error":{"message":` + m(lead+`{"error":{"code":503,"message":"x","status":"UNAVAILABLE"}}`) + `,"code":503}}`},
		{name: "a 4xx name over a Google 400", status: 503, want: Unknown,
			body: `{"error":{"message":` + m(lead+`{"error":{"code":400,"message":"x","status":"INVALID_ARGUMENT"}}`) + `,"code":503}}`},
		{name: "the client's own text quoted back", status: 503, want: ServerError, req: string(req),
			body: `{"error":{"message":` + m(lead+invalid) + `,"code":503}}`},
	})
}

// TestVocabularyRoundFortyFourUnknownBlock: hunt 44b. A user of an
// Anthropic-compatible endpoint that lacks one of the Messages API's
// content blocks relies on the walk moving on to a target that has it
// (unknown), though serde's list of the variants it expected names
// blocks the bad-input phrases know; a role it does not know, or a value
// of a member, stays the client's.
func TestVocabularyRoundFortyFourUnknownBlock(t *testing.T) {
	serde := func(detail string) string {
		return `{"error":{"message":"Failed to deserialize the JSON body into the target type: ` + detail + ` at line 1 column 971","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`
	}
	runHostile(t, []hostileCase{
		{name: "image block", status: 400, want: Unknown,
			body: serde("messages[66].content: unknown variant `image`, expected one of `text`, `tool_use`, `tool_result`, `thinking`")},
		{name: "document block", status: 400, want: Unknown,
			body: serde("messages[3].content: unknown variant `document`, expected one of `text`, `image`, `tool_use`, `tool_result`")},
		{name: "redacted thinking block", status: 400, want: Unknown,
			body: serde("messages[5].content: unknown variant `redacted_thinking`, expected one of `text`, `tool_use`, `tool_result`, `thinking`")},
		{name: "tool result block on a server without tools", status: 400, want: Unknown,
			body: serde("messages[2].content: unknown variant `tool_result`, expected `text` or `image`")},
		{name: "an OpenAI part, the list saying 'expected one of'", status: 400, want: Unknown,
			body: serde("messages[1].content[0]: unknown variant `image_url`, expected one of `text`, `input_text`")},
		{name: "a role", status: 400, want: BadRequest,
			body: serde("messages[0].role: unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool`")},
		{name: "a member's value", status: 400, want: BadRequest,
			body: serde("reasoning_effort: unknown variant `none`, expected one of `high`, `low`, `medium`")},
		{name: "a longer variant name", status: 400, want: BadRequest,
			body: serde("messages[1].content: unknown variant `images`, expected one of `text`, `tool_use`")},
	})
}

// TestVocabularyRoundFortyFourPartTypeInvalidValue: hunt 43g #0. A user of
// an OpenAI-compatible endpoint that lacks one of Chat Completions' content
// part types relies on the walk moving on (unknown) when the server says
// so in OpenAI's validator words without OpenAI's code; with the code
// invalid_value beside a path (OpenAI's own answer) the client's request
// is at fault and the walk stops.
func TestVocabularyRoundFortyFourPartTypeInvalidValue(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "unquoted, no code", status: 400, want: Unknown,
			body: `{"error":{"message":"Invalid value: file. Supported values are: 'text','image_url','video_url' and 'video'."}}`},
		{name: "quoted, no code", status: 400, want: Unknown,
			body: `{"error":{"message":"Invalid value: 'input_audio'. Supported values are: 'text' and 'image_url'.","type":"invalid_request_error"}}`},
		{name: "OpenAI's code beside the path", status: 400, want: BadRequest,
			body: `{"error":{"message":"Invalid value: 'file'. Supported values are: 'text', 'refusal', 'image_url', and 'input_audio'.","type":"invalid_request_error","param":"messages[0].content[1]","code":"invalid_value"}}`},
		{name: "another member's value", status: 400, want: BadRequest,
			body: `{"error":{"message":"Invalid value: 'other'. Supported values are: 'search', 'open_page', and 'find_in_page'.","type":"invalid_request_error"}}`},
		{name: "a longer word", status: 400, want: BadRequest,
			body: `{"error":{"message":"Invalid value: files. Supported values are: 'text'."}}`},
	})
}
