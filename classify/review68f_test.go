package classify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// Review 68f: text the client sent that looks like inline data is text
// all the same where it sits in a text member. A provider tokenises base64
// pasted into a message (about a token every three characters) and a log
// whose lines begin "data:" as it does any text: a request over the cap
// by either read rate_limited and cooled the endpoint for every tenant,
// which the per-minute cap (minutecap.go) was written to stop.
func TestReview68fInlineLookalikeTextCounts(t *testing.T) {
	c := corpusAnswer(t, "anthropic-rate-limit-your-organizations-rate-limit-org-model-429.json") // 30,000
	var b64 strings.Builder
	for i := 0; b64.Len() < 200_000; i++ {
		fmt.Fprintf(&b64, "%08x", uint32(i)*2654435761) // hex digits: base64's alphabet, no space
	}
	sse := "data: " + strings.Repeat(`{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"delta":{"content":"word"}}]}`+"\\n\\ndata: ", 2000)
	for name, text := range map[string]string{"base64 pasted as text": b64.String(), "an SSE log as text": sse} {
		req := messagesRequest("Decode this and summarise it: " + text)
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: req}); v.Class != Overflow {
			t.Errorf("%s (%d bytes, 30,000-token cap): %s (%s), want overflow", name, len(text), v.Class, v.Evidence)
		}
		arr := messagesRequestBlocks(text)
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: arr}); v.Class != Overflow {
			t.Errorf("%s in a text block: %s (%s), want overflow", name, v.Class, v.Evidence)
		}
	}
	// Real inline data stays uncounted: Anthropic's source.data, Gemini's
	// inlineData.data, OpenAI's data: URL and input_audio.data.
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 20000)
	for _, req := range []string{
		`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}]}]}`,
		`{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"` + img + `"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + img + `"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"` + img + `","format":"wav"}}]}]}`,
		`{"model":"m","input":[{"role":"user","content":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,` + img + `"}]}]}`,
	} {
		if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: []byte(req)}); v.Class != RateLimited {
			t.Errorf("inline data %.60s…: %s (%s), want rate_limited", req, v.Class, v.Evidence)
		}
	}
}

// The cost: an upstream's texts each stating another small cap, against a
// megabyte of inline data the scan reads to its end, read the request once
// (requestAbove): each read a pass of its own before (8 ms a
// classification, 18 ms with the caps; 8 ms after).
func TestReview68fCapScanCostBounded(t *testing.T) {
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 44000)
	req := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}},{"type":"text","text":"hi"}]}]}`)
	body := `{"error":{"message":"limit of 1,005 tokens per minute","type":"rate_limit_error","detail":"limit of 1,004 tokens per minute","msg":"limit of 1,003 tokens per minute"},"message":"limit of 1,002 tokens per minute","detail":"limit of 1,001 tokens per minute"}`
	r := Response{Status: 429, Body: []byte(body), Request: req}
	if v := Classify(r); v.Class != RateLimited {
		t.Errorf("%s (%s), want rate_limited: a megabyte image is no text over any of the caps", v.Class, v.Evidence)
	}
	if a := testing.AllocsPerRun(5, func() { Classify(r) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// BenchmarkCapScanSixTexts is the cost TestReview68fCapScanCostBounded
// bounds by construction: six stated caps, one pass over a megabyte's
// request (go test ./classify -run XXX -bench CapScan).
func BenchmarkCapScanSixTexts(b *testing.B) {
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 44000)
	req := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}},{"type":"text","text":"hi"}]}]}`)
	body := `{"error":{"message":"limit of 1,005 tokens per minute","type":"rate_limit_error","detail":"limit of 1,004 tokens per minute","msg":"limit of 1,003 tokens per minute"},"message":"limit of 1,002 tokens per minute","detail":"limit of 1,001 tokens per minute"}`
	r := Response{Status: 429, Body: []byte(body), Request: req}
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		Classify(r)
	}
}

func messagesRequestBlocks(text string) []byte {
	q, _ := json.Marshal(text)
	return []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":` + string(q) + `}]}]}`)
}

// Review 68f: since round 68 an envelope's capitalised names are read as
// the lower-case ones (canonKey), and a server whose untagged Go struct
// writes {"Error":"",…} beside every success had each one read as a
// failure (server_error, body:error), cooling the endpoint. A blank error
// string is none; a worded one, or an error object, still fails a 2xx.
func TestReview68fBlankErrorStringIsNoFailure(t *testing.T) {
	for _, b := range []string{
		`{"id":"x","object":"chat.completion","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"Error":""}`,
		`{"Error":"","Data":{"text":"hi"}}`,
		`{"error":"","choices":[{"message":{"content":"hi"}}]}`,
	} {
		if v := Classify(Response{Status: 200, Body: []byte(b)}); v.Failed {
			t.Errorf("%s: %s (%s), want no failure", b, v.Class, v.Evidence)
		}
	}
	for _, b := range []string{`{"Error":"boom","choices":[]}`, `{"error":{"message":"boom"}}`, `{"Error":{"Code":"insufficient_quota"}}`} {
		if v := Classify(Response{Status: 200, Body: []byte(b)}); !v.Failed {
			t.Errorf("%s: no failure", b)
		}
	}
}

// Review 68f: the size is the text's, not its JSON spelling's. Python's
// json.dumps (ensure_ascii, the default, as older httpx sent the SDKs'
// bodies) writes 中 as \u4e2d, six bytes for three: the same Chinese
// request read overflow (a throttle told to its client as 413, not to be
// retried) where its UTF-8 spelling read the full minute; and a client
// escaping every letter made any throttle its own overflow.
func TestReview68fEscapesCountAsTheirText(t *testing.T) {
	c := corpusAnswer(t, "anthropic-rate-limit-input-tokens-per-minute.json") // 20,000
	cjk := strings.Repeat("中文文本的摘要请写清楚。", 1400)                               // 15,400 characters, 46 KB of UTF-8
	raw := messagesRequestBlocks(cjk)
	var esc strings.Builder
	for _, r := range cjk {
		fmt.Fprintf(&esc, `\u%04x`, r)
	}
	escaped := []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":"` + esc.String() + `"}]}]}`)
	vr := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: raw})
	ve := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: escaped})
	if vr.Class != ve.Class {
		t.Errorf("the same text: %s (%s) in UTF-8, %s (%s) escaped", vr.Class, vr.Evidence, ve.Class, ve.Evidence)
	}
	var letters strings.Builder
	for _, r := range strings.Repeat("hello there ", 2000) { // 24 KB: 6,000 tokens
		fmt.Fprintf(&letters, `\u%04x`, r)
	}
	small := []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"` + letters.String() + `"}]}`)
	if v := Classify(Response{Status: c.Status, Body: []byte(c.Body), Request: small}); v.Class != RateLimited {
		t.Errorf("6,000 tokens of escaped letters: %s (%s), want rate_limited", v.Class, v.Evidence)
	}
}
