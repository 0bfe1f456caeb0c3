package classify

// Probe 65a: does a class survive a relay's wrapping? Every corpus answer
// of a first-party vendor (an error status, not a stream, labelled, not a
// known miss) is wrapped in each relay's envelope as the corpus shows that
// relay wrapping an upstream's body, at the status the relay answers with,
// and classified again. TestRelayWrapKeepsClass (wrap65a_test.go) asserts
// the class is kept; TestWrapProbeReport writes the whole table when
// WRAP65A_REPORT names a file.
//
// Each template cites the corpus answer (file, source) that shows it:
//
//   openrouter  {"error":{"message":"Provider returned error","code":S,"metadata":{"raw":"<body>","provider_name":"X"}}}
//               openrouter-azure-responses-max-output-tokens-below-minimum-400 (vectorize-io/hindsight#58;
//               no is_byok member: whose key the upstream refused is left open, so a quota or auth reading stands);
//               openrouter-400-relayed-anthropic-image-specified-jpeg-appears-to-be-png (LaoshuBaby/liulianmao#11).
//   litellm     {"error":{"message":"litellm.<Exc>: <Vendor>Exception - <payload>. Received Model Group=m\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"S'"}}
//               litellm-relayed-openai-unsupported-parameter-temperature-type-null-400 (BerriAI/litellm#11722),
//               litellm-anthropic-context-limit-relayed-badrequest-400 (BrokkAi/brokk-app#540),
//               litellm-notfound-model-does-not-exist-model-group-404 (the vendor's message alone, OpenAI-family).
//               S' and <Exc> from litellm/litellm_core_utils/exception_mapping_utils.py (github:BerriAI/litellm):
//               the payload is the vendor's error.message for the OpenAI family (get_error_message), its body
//               for Anthropic, Gemini/Vertex, Bedrock and Cohere.
//   newapi      {"error":{"message":"<msg> (request id: R)","type":"<type>","param":"<param>","code":<code>}}
//               newapi-hosted-tool-web-search-preview-not-supported-with-model (QuantumNous/new-api#1586),
//               oneapi-unsupported-country-region-territory-request-id-403 (songquanpeng/one-api#1692);
//               a body it cannot read is quoted whole as the message:
//               newapi-relayed-anthropic-temperature-top-p-400 (infiniflow/ragflow#11815).
//   newapi-claude {"error":{"type":"<type>|<nil>","message":"<msg> (request id: R)"},"type":"error"}
//               newapi-400-moonshot-thinking-enabled-reasoning-content-missing-nil-type-request-id (MoonshotAI/kimi-agent-sdk#169),
//               newapi-relayed-volcengine-coding-plan-role-system-not-valid-400 (QuantumNous/new-api#2288).
//   portkey     {"error":{"message":"<provider> error: <msg>","type":T,"param":P,"code":C},"provider":"<provider>"}
//               portkey-bedrock-security-token-invalid-403 (Portkey-AI/gateway#440); type, param and code kept as
//               pollinations-relayed-azure-missing-required-parameter-input-audio-data-400 shows (maruel/genai).
//   vercel      {"error":{"message":"<msg>","type":"AI_APICallError","param":{"error":"<msg>","statusCode":S,...}}}
//               vercel-gateway-relayed-zai-insufficient-balance-429 (vercel/ai#9290).
//   truefoundry {"status":"failure","message":"<p> error: <msg>","error":{"message":"<p> error: <msg>","type":"APIError","code":"S"},...}
//               truefoundry-405-deepinfra-json-object-response-format-not-supported-for-model (truefoundry/models#913).
//   bifrost     {"is_bifrost_error":false,"status_code":S,"error":{"type":T,"message":"<msg>"},"extra_fields":{...}}
//               bedrock-bifrost-400-document-source-bytes-could-not-be-parsed (maximhq/bifrost#5472).
//   ccr         {"error":{"message":"Error from provider(p,m: S): <body>","type":"api_error","code":"provider_response_error"}}
//               ccr-modelscope-model-id-has-no-provider-supported-400 (musistudio/claude-code-router#906).
//   donehub     {"type":"S","error":{"type":"system_error","message":"Provider API error: <body> (request id: R)"}}
//               donehub-400-system-error-provider-api-error-tools-input-schema-invalid (deanxv/done-hub#33).
//   antigravity {"error":{"message":"All 2 attempts failed. Last error: HTTP S <Reason>: <body>"}} at 429, whatever S
//               antigravity-429-relayed-400-vertex-claude-thinking-signature-field-required (lbjlaq/Antigravity-Manager#179).
//
// Cloudflare AI Gateway and Helicone pass an upstream's body through as it
// came (the corpus holds only their own answers), so they are not probed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// wrapFirstParty are the vendors whose own answers are wrapped.
var wrapFirstParty = map[string]string{
	"openai": "OpenAI", "azure": "Azure", "anthropic": "Anthropic", "gemini": "Google AI Studio",
	"vertex": "Google", "groq": "Groq", "mistral": "Mistral", "deepseek": "DeepSeek", "together": "Together",
	"xai": "xAI", "bedrock": "Amazon Bedrock", "cerebras": "Cerebras", "fireworks": "Fireworks",
	"perplexity": "Perplexity", "cohere": "Cohere", "dashscope": "Alibaba", "moonshot": "Moonshot AI",
	"zhipu": "Z.AI", "minimax": "Minimax", "siliconflow": "SiliconFlow", "volcengine": "ByteDance",
	"baidu": "Baidu", "watsonx": "IBM", "deepinfra": "DeepInfra", "sambanova": "SambaNova",
	"nvidia": "Nvidia", "hunyuan": "Tencent", "spark": "iFlytek", "stepfun": "StepFun", "mimo": "Xiaomi",
	"novita": "NovitaAI", "nebius": "Nebius", "friendli": "Friendli", "reka": "Reka", "ai21": "AI21",
	"upstage": "Upstage", "hyperbolic": "Hyperbolic", "chutes": "Chutes", "arcee": "Arcee",
	"jina": "Jina", "voyage": "Voyage", "mixedbread": "Mixedbread", "gigachat": "GigaChat",
	"yandex": "Yandex", "sensenova": "SenseNova", "baseten": "BaseTen", "crusoe": "Crusoe",
	"ionos": "IONOS", "kluster": "Kluster", "gmicloud": "GMICloud", "venice": "Venice",
	"writer": "Writer", "parasail": "Parasail",
}

// relayedMark: a first-party file whose answer already came through a relay.
var relayedMark = regexp.MustCompile(`(?i)relay|litellm|openrouter|bifrost|portkey|new-?api|one-?api|gateway|proxy`)

type wrapCase struct {
	name string
	c    corpusCase
}

// wrapCases are the answers the probe wraps, by name.
func wrapCases(t testing.TB) []wrapCase {
	var out []wrapCase
	for name, c := range loadCorpus(t) {
		if _, ok := wrapFirstParty[c.Provider]; !ok || c.Stream || c.Status < 400 ||
			c.Class == "unknown" || c.Miss != "" {
			continue
		}
		if relayedMark.MatchString(name) || bytes.Contains([]byte(c.Body), []byte("Provider returned error")) ||
			bytes.Contains([]byte(c.Body), []byte("litellm.")) {
			continue
		}
		out = append(out, wrapCase{name, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// vendorErr is what a relay reads of its upstream's answer.
type vendorErr struct {
	msg, typ, param string
	code            json.RawMessage // as the vendor wrote it; nil if absent
	ok              bool            // msg came from a known member
}

func rawString(r json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s, true
	}
	return "", false
}

// readVendor reads a vendor body as relays do: error.message (Google's
// error.status as its type), a top-level message, error as a string,
// detail, Baidu's error_msg, watsonx's errors[0].
func readVendor(body string) vendorErr {
	var v vendorErr
	var top map[string]json.RawMessage
	b := bytes.TrimSpace([]byte(body))
	if len(b) > 0 && b[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(b, &arr) == nil && len(arr) > 0 {
			b = arr[0]
		}
	}
	if json.Unmarshal(b, &top) != nil {
		v.msg = body
		return v
	}
	obj := top
	if e, ok := top["error"]; ok {
		var eo map[string]json.RawMessage
		if json.Unmarshal(e, &eo) == nil {
			obj = eo
		} else if s, ok := rawString(e); ok && s != "" {
			v.msg, v.ok = s, true
		}
	} else if e, ok := top["errors"]; ok {
		var arr []map[string]json.RawMessage
		if json.Unmarshal(e, &arr) == nil && len(arr) > 0 {
			obj = arr[0]
		}
	}
	if !v.ok {
		for _, k := range []string{"message", "Message", "error_msg", "detail", "msg"} {
			if r, ok := obj[k]; ok {
				if s, ok := rawString(r); ok && s != "" {
					v.msg, v.ok = s, true
					break
				}
				if len(r) > 0 && r[0] == '{' {
					v.msg, v.ok = string(r), true
					break
				}
			}
		}
	}
	if r, ok := obj["type"]; ok {
		v.typ, _ = rawString(r)
	}
	if r, ok := obj["status"]; ok && v.typ == "" {
		v.typ, _ = rawString(r)
	}
	if r, ok := obj["param"]; ok {
		v.param, _ = rawString(r)
	}
	for _, k := range []string{"code", "error_code"} {
		if r, ok := obj[k]; ok && string(r) != "null" {
			v.code = r
			break
		}
	}
	if !v.ok {
		v.msg = body
	}
	return v
}

// jsString is s as JSON, without escaping <, > and & (JavaScript's and
// Python's serialisers leave them).
func jsString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// goString is s as Go's encoding/json writes it.
func goString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const wrapReqID = "20260317221524507549295izfaVmyu"

// litellmMap is LiteLLM's exception mapping (exception_mapping_utils.py):
// the exception it raises for a vendor's answer, and so its proxy's status.
func litellmMap(provider string, status int, body string) (int, string) {
	low := strings.ToLower(body)
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(body, x) {
				return true
			}
		}
		return false
	}
	ctx := func() bool {
		if strings.Contains(low, "string_above_max_length") {
			return false
		}
		for _, s := range []string{"exceed context limit", "this model's maximum context length is",
			"string too long. expected a string with maximum length", "model's maximum context limit",
			"is longer than the model's context length", "input tokens exceed the configured limit",
			"`inputs` tokens + `max_new_tokens` must be", "exceeds the available context size",
			"exceeds the maximum number of tokens allowed"} {
			if strings.Contains(low, s) {
				return true
			}
		}
		return (strings.Contains(low, "current length is") && strings.Contains(low, "while limit is")) ||
			(strings.Contains(low, "maximum input length is") && strings.Contains(low, "tokens"))
	}
	if has("Request Timeout Error", "Request timed out", "Timed out generating response", "The read operation timed out") {
		return 408, "Timeout"
	}
	byStatus := func() (int, string) {
		switch {
		case status == 401:
			return 401, "AuthenticationError"
		case status == 403:
			return 403, "PermissionDeniedError"
		case status == 404:
			return 404, "NotFoundError"
		case status == 408, status == 504:
			return 408, "Timeout"
		case status == 429:
			return 429, "RateLimitError"
		case status == 500:
			return 500, "InternalServerError"
		case status == 502:
			return 502, "BadGatewayError"
		case status == 503:
			return 503, "ServiceUnavailableError"
		case status < 500:
			return 400, "BadRequestError"
		}
		return status, "APIError"
	}
	switch provider {
	case "anthropic":
		switch {
		case has("prompt is too long", "prompt: length") || ctx():
			return 400, "ContextWindowExceededError"
		case has("overloaded_error", "Overloaded"):
			return 500, "InternalServerError"
		case has("Invalid API Key"):
			return 401, "AuthenticationError"
		case has("content filtering policy"):
			return 400, "ContentPolicyViolationError"
		case status == 413:
			return 400, "BadRequestError"
		case status == 529:
			return 500, "InternalServerError"
		}
		return byStatus()
	case "gemini", "vertex":
		switch {
		case has("Vertex AI API has not been used in project", "Unable to find your project"):
			return 400, "BadRequestError"
		case has("400 Request payload size exceeds") || ctx():
			return 400, "ContextWindowExceededError"
		case has("None Unknown Error.", "Content has no parts."):
			return 500, "InternalServerError"
		case has("API key not valid."):
			return 401, "AuthenticationError"
		case status == 403:
			return 400, "BadRequestError"
		case has("The response was blocked.", "Output blocked by content filtering policy"):
			return 400, "ContentPolicyViolationError"
		case has("429 Quota exceeded", "Quota exceeded for") || regexp.MustCompile(`(?i)resource[\s_]exhausted`).MatchString(body):
			return 429, "RateLimitError"
		case has("500 Internal Server Error", "The model is overloaded."):
			return 500, "InternalServerError"
		case status == 502:
			return 500, "APIConnectionError"
		}
		return byStatus()
	case "cohere":
		switch {
		case has("invalid api token", "No API key provided."):
			return 401, "AuthenticationError"
		case has("invalid type: parameter"):
			return 400, "BadRequestError"
		case has("too many tokens"):
			return 400, "ContextWindowExceededError"
		case strings.Contains(low, "internal server error"):
			return 500, "InternalServerError"
		case status == 400, status == 498:
			return 400, "BadRequestError"
		case status == 408, status == 500:
			return byStatus()
		}
		return status, "APIError"
	case "bedrock":
		if ctx() {
			return 400, "ContextWindowExceededError"
		}
		return byStatus()
	}
	// The OpenAI family (openai_compatible_providers, mistral): the
	// openai SDK's message is "Error code: S - {…}".
	errStr := fmt.Sprintf("Error code: %d - %s", status, body)
	switch {
	case (regexp.MustCompile(`\b429\b`).MatchString(errStr) && status == 429) ||
		regexp.MustCompile(`rate[\s_\-]*limit`).MatchString(strings.ToLower(errStr)) ||
		strings.Contains(strings.ToLower(errStr), "service tier capacity exceeded"):
		return 429, "RateLimitError"
	case ctx():
		return 400, "ContextWindowExceededError"
	case strings.Contains(errStr, "invalid_request_error") && strings.Contains(errStr, "model_not_found"):
		return 404, "NotFoundError"
	case strings.Contains(errStr, "A timeout occurred"):
		return 408, "Timeout"
	case (strings.Contains(errStr, "invalid_request_error") && strings.Contains(errStr, "content_policy_violation")) ||
		(strings.Contains(errStr, "Invalid prompt") && strings.Contains(errStr, "violating our usage policy")) ||
		strings.Contains(strings.ToLower(errStr), "request was rejected as a result of the safety system"):
		return 400, "ContentPolicyViolationError"
	case strings.Contains(errStr, "invalid_encrypted_content") || strings.Contains(errStr, "could not be verified"):
		return 400, "BadRequestError"
	case strings.Contains(errStr, "invalid_request_error") && !strings.Contains(errStr, "Incorrect API key provided"):
		return 400, "BadRequestError"
	case strings.Contains(errStr, "Web server is returning an unknown error") ||
		strings.Contains(errStr, "The server had an error processing your request."):
		return 500, "InternalServerError"
	case strings.Contains(errStr, "Request too large"):
		return 429, "RateLimitError"
	}
	switch status {
	case 400, 422:
		return 400, "BadRequestError"
	case 401, 404, 408, 429, 500, 502, 503, 504:
		return byStatus()
	}
	return status, "APIError"
}

// litellmVendor is the name LiteLLM gives the vendor's exception.
func litellmVendor(p string) string {
	switch p {
	case "openai":
		return "OpenAI"
	case "vertex":
		return "Vertex_ai"
	case "together":
		return "Together_ai"
	case "fireworks":
		return "Fireworks_ai"
	case "zhipu":
		return "Zai"
	}
	return strings.ToUpper(p[:1]) + p[1:]
}

// reasonPhrase is the status's reason as an HTTP library prints it.
func reasonPhrase(s int) string {
	if t := http.StatusText(s); t != "" {
		return t
	}
	return "Unknown"
}

type relayWrap struct {
	name string
	wrap func(c corpusCase) (status int, body string, ok bool)
}

var relayWraps = []relayWrap{
	{"openrouter", func(c corpusCase) (int, string, bool) {
		return c.Status, fmt.Sprintf(`{"error":{"message":"Provider returned error","code":%d,"metadata":{"raw":%s,"provider_name":%s}}}`,
			c.Status, jsString(c.Body), jsString(wrapFirstParty[c.Provider])), true
	}},
	{"litellm", func(c corpusCase) (int, string, bool) {
		st, exc := litellmMap(c.Provider, c.Status, c.Body)
		payload := c.Body
		switch c.Provider {
		case "anthropic", "gemini", "vertex", "bedrock", "cohere":
		default:
			if v := readVendor(c.Body); v.ok {
				payload = v.msg
			}
		}
		model := c.Model
		if model == "" {
			model = "glm-4.6"
		}
		msg := fmt.Sprintf("litellm.%s: %sException - %s. Received Model Group=%s\nAvailable Model Group Fallbacks=None",
			exc, litellmVendor(c.Provider), payload, model)
		return st, fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, jsString(msg), st), true
	}},
	{"newapi", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		code := "null"
		if v.code != nil {
			code = string(v.code)
		}
		return c.Status, fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":%s,"code":%s}}`,
			goString(v.msg+" (request id: "+wrapReqID+")"), goString(v.typ), goString(v.param), code), true
	}},
	{"newapi-claude", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		typ := v.typ
		if typ == "" {
			typ = "<nil>"
		}
		return c.Status, fmt.Sprintf(`{"error":{"type":%s,"message":%s},"type":"error"}`,
			goString(typ), goString(v.msg+" (request id: "+wrapReqID+")")), true
	}},
	{"portkey", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		null := func(s string) string {
			if s == "" {
				return "null"
			}
			return jsString(s)
		}
		code := "null"
		if v.code != nil {
			code = string(v.code)
		}
		return c.Status, fmt.Sprintf(`{"error":{"message":%s,"type":%s,"param":%s,"code":%s},"provider":%s}`,
			jsString(c.Provider+" error: "+v.msg), null(v.typ), null(v.param), code, jsString(c.Provider)), true
	}},
	{"vercel", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		retry := c.Status == 408 || c.Status == 409 || c.Status == 429 || c.Status >= 500
		return c.Status, fmt.Sprintf(`{"error":{"message":%s,"type":"AI_APICallError","param":{"error":%s,"statusCode":%d,"name":"AI_APICallError","message":%s,"url":"https://api.example.com/v1/chat/completions","isRetryable":%v,"type":"AI_APICallError"}}}`,
			jsString(v.msg), jsString(v.msg), c.Status, jsString(v.msg), retry), true
	}},
	{"truefoundry", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		m := jsString(c.Provider + " error: " + v.msg)
		return c.Status, fmt.Sprintf(`{"status":"failure","message":%s,"error":{"message":%s,"type":"APIError","code":"%d"},"error_origin_level":"api_error","provider":%s}`,
			m, m, c.Status, jsString(c.Provider)), true
	}},
	{"bifrost", func(c corpusCase) (int, string, bool) {
		v := readVendor(c.Body)
		return c.Status, fmt.Sprintf(`{"is_bifrost_error":false,"status_code":%d,"error":{"type":%s,"message":%s},"extra_fields":{"provider":%s,"model_requested":"glm-4.6","request_type":"chat_completion"}}`,
			c.Status, goString(v.typ), goString(v.msg), goString(c.Provider)), true
	}},
	{"ccr", func(c corpusCase) (int, string, bool) {
		msg := fmt.Sprintf("Error from provider(%s,glm-4.6: %d): %s", c.Provider, c.Status, c.Body)
		return c.Status, fmt.Sprintf(`{"error":{"message":%s,"type":"api_error","code":"provider_response_error"}}`, jsString(msg)), true
	}},
	{"donehub", func(c corpusCase) (int, string, bool) {
		msg := "Provider API error: " + c.Body + " (request id: " + wrapReqID + ")"
		return c.Status, fmt.Sprintf(`{"type":"%d","error":{"type":"system_error","message":%s}}`, c.Status, goString(msg)), true
	}},
	{"antigravity", func(c corpusCase) (int, string, bool) {
		msg := fmt.Sprintf("All 2 attempts failed. Last error: HTTP %d %s: %s", c.Status, reasonPhrase(c.Status), c.Body)
		return 429, fmt.Sprintf(`{"error":{"message":%s}}`, jsString(msg)), true
	}},
}

// wrapResult is one wrapped answer's verdicts.
type wrapResult struct {
	relay, name     string
	status, wrapped int
	before, after   Verdict
	beforeS, afterS string
}

func verdictClass(v Verdict) string {
	if !v.Failed {
		return "success"
	}
	return v.Class.String()
}

// runWrapProbe wraps every case in every relay.
func runWrapProbe(t testing.TB) []wrapResult {
	var out []wrapResult
	for _, wc := range wrapCases(t) {
		before := Classify(wc.c.response())
		for _, rw := range relayWraps {
			st, body, ok := rw.wrap(wc.c)
			if !ok {
				continue
			}
			r := wc.c.response()
			r.Status, r.Body = st, []byte(body)
			after := Classify(r)
			out = append(out, wrapResult{rw.name, wc.name, wc.c.Status, st, before, after,
				verdictClass(before), verdictClass(after)})
		}
	}
	return out
}

// TestWrapProbeReport writes the probe's table to $WRAP65A_REPORT.
func TestWrapProbeReport(t *testing.T) {
	path := os.Getenv("WRAP65A_REPORT")
	if path == "" {
		t.Skip("WRAP65A_REPORT not set")
	}
	res := runWrapProbe(t)
	kept := map[string]int{}
	total := map[string]int{}
	var lines []string
	for _, r := range res {
		total[r.relay]++
		if r.beforeS == r.afterS {
			kept[r.relay]++
			continue
		}
		lines = append(lines, fmt.Sprintf("%s\t%s\t%d->%d\t%s -> %s\t%q -> %q",
			r.relay, r.name, r.status, r.wrapped, r.beforeS, r.afterS, r.before.Evidence, r.after.Evidence))
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "cases %d\n", len(wrapCases(t)))
	for _, rw := range relayWraps {
		fmt.Fprintf(&buf, "%-14s kept %4d / %4d  changed %d\n", rw.name, kept[rw.name], total[rw.name], total[rw.name]-kept[rw.name])
	}
	buf.WriteString(strings.Join(lines, "\n") + "\n")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
