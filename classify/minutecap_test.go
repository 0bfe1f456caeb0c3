package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Anthropic's input-tokens-per-minute refusal, as published (the corpus
// files cite their sources), at a request its own size is over and at one
// that fits: the first can never pass this endpoint (overflow: the walk
// moves on, nothing cools), the second met a full minute (rate_limited).
func TestPerMinuteCapARequestAloneOverItIsOverflow(t *testing.T) {
	for _, name := range []string{
		"anthropic-rate-limit-your-organizations-rate-limit-org-model-429.json", // 30,000
		"anthropic-rate-limit-input-tokens-per-minute.json",                     // 20,000
		"anthropic-openai-compat-rate-limit-error-input-tpm-429.json",           // 20,000, OpenAI-compatible endpoint
		"anthropic-rate-limit-pretty.json",                                      // 30,000
	} {
		c := corpusAnswer(t, name)
		big := messagesRequest(strings.Repeat("Summarise the module below for a reviewer. ", 3000)) // ~132 KB of text: ~33,000 tokens
		small := messagesRequest("hello")
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: big}); v.Class != Overflow || v.Evidence != "phrase:request>per-minute-cap" {
			t.Errorf("%s, a request over the cap: %s (%s), want overflow (phrase:request>per-minute-cap)", name, v.Class, v.Evidence)
		}
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: small}); v.Class != RateLimited {
			t.Errorf("%s, a small request: %s (%s), want rate_limited", name, v.Class, v.Evidence)
		}
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body)}); v.Class != RateLimited {
			t.Errorf("%s, no request: %s (%s), want rate_limited", name, v.Class, v.Evidence)
		}
	}
}

// What does not make a request large: inline data (a megabyte of base64 is
// an image of ~1,600 tokens) and text after the client's body (the
// forwarded headers and the sent body, which repeat it).
func TestPerMinuteCapCountsTheClientsTextOnly(t *testing.T) {
	c := corpusAnswer(t, "anthropic-rate-limit-your-organizations-rate-limit-org-model-429.json")
	text := strings.Repeat("Summarise the module below for a reviewer. ", 3000)
	image := `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` +
		strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 60000) + `"}},{"type":"text","text":"what is this?"}]}]}`
	dataURL := `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` +
		strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 60000) + `"}}]}]}`
	trailing := append(messagesRequest("hello"), "\n"+text+"\n"+text...)
	quoted := messagesRequest(text + " This request would exceed your organization's rate limit of 30,000 input tokens per minute")
	for name, req := range map[string][]byte{"inline image": []byte(image), "data: URL": []byte(dataURL), "text after the body": trailing} {
		if v := Classify(Response{Status: 429, Body: []byte(c.Body), Request: req}); v.Class != RateLimited {
			t.Errorf("%s: %s (%s), want rate_limited", name, v.Class, v.Evidence)
		}
	}
	// The cap quoted in the client's own text changes nothing: its size
	// decides, and an overflow moves only its own request on (review 68f:
	// read as the throttle, quoting the cap cooled the endpoint for all).
	if v := Classify(Response{Status: 429, Body: []byte(c.Body), Request: quoted}); v.Class != Overflow {
		t.Errorf("a cap the client's text also states: %s (%s), want overflow", v.Class, v.Evidence)
	}
}

func TestPerMinuteCapReadsTheStatedCap(t *testing.T) {
	for text, want := range map[string]int64{
		"would exceed the rate limit for your organization (x) of 1,000,000 input tokens per minute.": 1000000,
		"exceeds the limit of 100000 tokens per minute":                                               100000,
		"rate limit of 30,000 INPUT TOKENS PER MINUTE (org: x)":                                       30000,
		"Exceeded workspace input tokens per minute rate limit":                                       0,
		"rate limit of 8,000 output tokens per minute":                                                0,
		"input tokens per minute":                                                                     0,
		", input tokens per minute":                                                                   0,
	} {
		s, e, n := perMinuteCap([]byte(text))
		if n != want || (want > 0) != (e > s) {
			t.Errorf("%q: cap %d span %d-%d, want %d", text, n, s, e, want)
		}
	}
}

func TestRequestTokensAboveAllocatesNothing(t *testing.T) {
	req := messagesRequest(strings.Repeat("word ", 100000))
	if a := testing.AllocsPerRun(20, func() { requestTokensAbove(req, 20000) }); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
}

func messagesRequest(text string) []byte {
	b, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 1024,
		"messages": []any{map[string]any{"role": "user", "content": text}}})
	return b
}

// corpusAnswer is the corpus's answer in file name.
func corpusAnswer(t *testing.T, name string) corpusCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	var c corpusCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// Gemini's free tier caps input tokens a minute (250,000) below its models'
// window (1,000,000): a request over it meets the same 429 as a full minute,
// in its structured form (QuotaFailure's quotaValue beside an InputTokens
// quotaId) and in the message-only form gemini-cli prints.
func TestPerMinuteCapGeminiInputTokens(t *testing.T) {
	big := messagesRequest(strings.Repeat("Explain what this repository's build does, file by file. ", 20000)) // ~1.1 MB: ~285,000 tokens
	for name, ev := range map[string]string{
		"gemini-resource-exhausted-per-minute-tokens.json":                                            "gemini:request>quotaValue",
		"gemini-429-free-tier-input-token-count-limit-250000-retry-39s-message-only-details-cut.json": "phrase:request>per-minute-cap",
	} {
		c := corpusAnswer(t, name)
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: big}); v.Class != Overflow || v.Evidence != ev {
			t.Errorf("%s, a request over the cap: %s (%s), want overflow (%s)", name, v.Class, v.Evidence, ev)
		}
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: messagesRequest("hello")}); v.Class != RateLimited {
			t.Errorf("%s, a small request: %s (%s), want rate_limited", name, v.Class, v.Evidence)
		}
	}
	// A day's allowance, or a minute's count of requests, is no cap one
	// request's size is over.
	for _, name := range []string{"gemini-429-free-tier-input-tokens-per-model-per-day-quotavalue-6000000.json",
		"gemini-429-free-tier-minute-tokens-minute-requests-and-day-requests-violations.json",
		"gemini-429-free-tier-limit-0-model-gemini-2-5-pro-message-only-details-cut.json"} {
		c := corpusAnswer(t, name)
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: big}); v.Class == Overflow {
			t.Errorf("%s: overflow (%s), want the corpus's %s", name, v.Evidence, c.Class)
		}
	}
}

// A PHP client's image (json_encode escapes every '/' as "\/" unless told
// not to: openai-php) is inline data as any other encoder's: its megabyte
// is no text over the cap, and the minute's answer stays rate_limited.
func TestPerMinuteCapInlineDataWithEscapedSlashes(t *testing.T) {
	c := corpusAnswer(t, "anthropic-rate-limit-your-organizations-rate-limit-org-model-429.json")
	data := strings.ReplaceAll(strings.Repeat("iVBORw0KGgo/AAAANSUhEUg+A", 60000), "/", `\/`)
	req := `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image\/png","data":"` +
		data + `"}},{"type":"text","text":"what is this?"}]}]}`
	if v := Classify(Response{Status: 429, Body: []byte(c.Body), Request: []byte(req)}); v.Class != RateLimited {
		t.Errorf("an image with escaped slashes: %s (%s), want rate_limited", v.Class, v.Evidence)
	}
	// Other escapes are text's: a long run broken by "\n" is counted.
	text := strings.Repeat(`abcdefgh\n`, 15000)
	if end, _, inline := stringSpan([]byte(text+`"`), 0); inline || end != len(text) {
		t.Errorf("text with newlines: end %d inline %v, want %d false", end, inline, len(text))
	}
}

// A request that asks for a prompt cache is not judged by its size:
// Anthropic counts no cached read against the cap (last look 68g), so a
// large cached request met a full minute as any other does.
func TestPerMinuteCapCachedRequestIsNotJudged(t *testing.T) {
	c := corpusAnswer(t, "anthropic-rate-limit-your-organizations-rate-limit-org-model-429.json")
	text := strings.Repeat("Summarise the module below for a reviewer. ", 3000)
	cached, _ := json.Marshal(map[string]any{"model": "claude-sonnet-4-5", "max_tokens": 1024,
		"system":   []any{map[string]any{"type": "text", "text": text, "cache_control": map[string]any{"type": "ephemeral"}}},
		"messages": []any{map[string]any{"role": "user", "content": "next step"}}})
	keyed, _ := json.Marshal(map[string]any{"model": "r", "prompt_cache_key": "agent-7",
		"messages": []any{map[string]any{"role": "user", "content": text}}})
	for name, req := range map[string][]byte{"cache_control": cached, "prompt_cache_key": keyed} {
		if v := Classify(Response{Status: 429, Body: []byte(c.Body), Request: req}); v.Class != RateLimited {
			t.Errorf("%s: %s (%s), want rate_limited", name, v.Class, v.Evidence)
		}
	}
}

// Anthropic's fast mode at an organization granted none: a per-minute cap
// of 0 (hunt 68h, corpus anthropic-429-rate-limit-of-0-fast-mode-…). No
// wait lets it through; where the request asked for fast mode it is that
// request's choice (unknown: nothing cooled, no page), else a zero
// allowance (quota).
func TestZeroCapFastMode(t *testing.T) {
	body := `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit of 0 fast mode input tokens per minute (org: ..., model: claude-opus-5). ..."},"request_id":"req_011Cej5u5Nu5mHTGDaVRwRqc"}`
	fast := `{"model":"claude-opus-5","max_tokens":1024,"speed":"fast","messages":[{"role":"user","content":"hi"}]}`
	for req, want := range map[string]Class{fast: Unknown, `{"model":"claude-opus-5","messages":[{"role":"user","content":"hi"}]}`: Quota, "": Quota} {
		if v := Classify(Response{Status: 429, Body: []byte(body), Request: []byte(req)}); v.Class != want {
			t.Errorf("request %q: %s (%s), want %s", req, v.Class, v.Evidence, want)
		}
	}
	// The words in the client's own prompt are no evidence.
	echo := `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited: 'my rate limit of 0 tokens per minute'"}}`
	if v := Classify(Response{Status: 429, Body: []byte(echo), Request: []byte(`{"messages":[{"role":"user","content":"my rate limit of 0 tokens per minute"}]}`)}); v.Class == Quota {
		t.Errorf("an echoed zero cap: %s (%s)", v.Class, v.Evidence)
	}
}
