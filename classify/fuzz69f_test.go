package classify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fuzz 69f: the per-minute cap (minutecap.go) against the client's request,
// capitalised envelope names (canonKey) and the fast-mode speed reading.

// capAnswers are answers that state a per-minute cap (the corpus's
// wordings), a zero cap and a fast-mode zero cap.
var capAnswers = []string{
	`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (x) of 30,000 input tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits."}}`,
	`{"error":{"code":429,"message":"You exceeded your current quota. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 250000, model: gemini-2.5-pro","status":"RESOURCE_EXHAUSTED"}}`,
	`{"error":{"message":"Rate limit reached: limit of 100 tokens per minute","type":"tokens"}}`,
	`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed your rate limit of 0 fast mode input tokens per minute (org: ..., model: claude-opus-5). ..."}}`,
	`{"Error":{"Message":"This request would exceed 20 tokens per minute","Code":"rate_limit_exceeded"}}`,
}

// FuzzMinuteCap: the classification of (status, body, request) is the same
// each time it is asked, a 4xx or 5xx is always a failure, and the cap's
// reading of the request (requestTokensAbove, requestText) never changes
// when bytes are appended after the request's first JSON value (bytes
// that name no prompt cache: marksCache reads the sent body after it on
// purpose). The request's text is the bytes of its strings' text, as
// encoding/json decodes them, but for inline data.
func FuzzMinuteCap(f *testing.F) {
	reqs := []string{
		string(messagesRequest(strings.Repeat("Summarise the module. ", 40))),
		`{"model":"claude-opus-5","max_tokens":1024,"speed":"fast","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"` + strings.Repeat("iVBORw0KGgo", 100) + `"}}]}]}`,
		`{"model":"m","messages":[{"role":"user","content":"\u4e2d\u6587 \ud83d\ude00 \/"}]}`,
		`{"spe\u0065d" : "\u0066ast","x":[{"url":"a"},"` + strings.Repeat("QUJD", 300) + `"]}`,
		`"just a string"`, `[1,2,{"data":"x"}]`, `{"x":[{"url":"a"},"` + strings.Repeat("QUJD", 300) + `"]}`,
	}
	for i, body := range capAnswers {
		f.Add(429, []byte(body), []byte(reqs[i%len(reqs)]), []byte("\nPOST /v1/messages"), int64(20))
	}
	for _, req := range reqs {
		f.Add(429, []byte(capAnswers[0]), []byte(req), []byte(`{"a":"b"}`), int64(100))
	}
	f.Fuzz(func(t *testing.T, status int, body, req, tail []byte, limit int64) {
		resp := Response{Status: status, Body: body, Request: req}
		v := Classify(resp)
		if w := Classify(resp); w != v {
			t.Fatalf("two verdicts for one answer: %+v then %+v", v, w)
		}
		if status >= 400 && status <= 599 && !v.Failed {
			t.Fatalf("status %d read as a success: %+v", status, v)
		}
		// A request is an object (the doors refuse any other body); a
		// bare number's reading runs on into what follows.
		end := firstValueEnd(req)
		if end < 0 || !bytes.HasPrefix(bytes.TrimLeft(req, " \t\r\n"), []byte("{")) {
			return
		}
		whole := append(bytes.Clone(req[:end]), tail...)
		if marksCache(whole) != marksCache(req[:end]) {
			return
		}
		if a, b := requestText(req[:end]), requestText(whole); a != b {
			t.Fatalf("text %d, %d with %q after the value", a, b, tail)
		}
		if a, b := requestTokensAbove(req[:end], limit), requestTokensAbove(whole, limit); a != b {
			t.Fatalf("over %d: %v, %v with %q after the value", limit, a, b, tail)
		}
		if want, ok := referenceText(req[:end]); ok {
			if got := requestText(req[:end]); got != want {
				t.Fatalf("%q: text %d, want %d", req[:end], got, want)
			}
		}
	})
}

// firstValueEnd is where the first JSON value of req ends, -1 where req
// does not open with one.
func firstValueEnd(req []byte) int {
	d := json.NewDecoder(bytes.NewReader(req))
	var v json.RawMessage
	if err := d.Decode(&v); err != nil {
		return -1
	}
	return int(d.InputOffset())
}

// referenceText is requestText read by encoding/json: the UTF-8 bytes of
// every string, member names included, but a string value of an inline-data
// member (inlineDataMember) that is a data: URL or a long base64 run. ok is
// false where the reference cannot say (not valid UTF-8, a lone surrogate,
// an escape in a data: prefix or a run: the scanner reads raw bytes).
func referenceText(req []byte) (n int64, ok bool) {
	if !utf8.Valid(req) || bytes.Contains(req, []byte(`\ud`)) || bytes.Contains(req, []byte(`\uD`)) || !json.Valid(req) {
		return 0, false
	}
	d := json.NewDecoder(bytes.NewReader(req))
	d.UseNumber()
	type frame struct{ object, wantKey bool }
	var stack []frame
	key := ""
	ok = true
	for {
		tok, err := d.Token()
		if err != nil {
			return n, ok
		}
		top := len(stack) - 1
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if top >= 0 && stack[top].object {
					stack[top].wantKey = true
				}
				stack = append(stack, frame{object: tok == '{', wantKey: tok == '{'})
			default:
				stack = stack[:top]
			}
			key = ""
		case string:
			if top >= 0 && stack[top].object && stack[top].wantKey {
				stack[top].wantKey = false
				key = tok
				n += int64(len(tok))
				continue
			}
			inline := strings.HasPrefix(strings.ToLower(tok), "data:") || len(tok) >= minInlineRun && strings.Trim(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_") == ""
			if bytes.ContainsRune(req, '\\') && (len(tok) >= minInlineRun/6 || strings.Contains(strings.ToLower(tok), "data:")) {
				ok = false // escapes, which the raw reading sees as they are written
			}
			if !(inline && inlineDataMember([]byte(key))) {
				n += int64(len(tok))
			}
			key = ""
			if top >= 0 && stack[top].object {
				stack[top].wantKey = true
			}
		default:
			key = ""
			if top >= 0 && stack[top].object {
				stack[top].wantKey = true
			}
		}
	}
}

// FuzzCapitalEnvelope: an error envelope whose member names are written
// capitalised (Error, Message, Code, Type, Param, Status, Details: C#, Go
// and AWS servers) reads as the same envelope written in lower case.
func FuzzCapitalEnvelope(f *testing.F) {
	f.Add(400, "Model gpt-x does not exist", "model_not_found", "invalid_request_error", "model", "NOT_FOUND", true)
	f.Add(429, "This request would exceed the rate limit of 30,000 input tokens per minute", "rate_limit_error", "", "", "", false)
	f.Add(403, "You exceeded your current quota", "insufficient_quota", "", "", "RESOURCE_EXHAUSTED", true)
	f.Add(200, "credit balance is too low", "", "error", "", "", false)
	f.Fuzz(func(t *testing.T, status int, msg, code, typ, param, st string, upper bool) {
		names := []string{"error", "message", "code", "type", "param", "status"}
		build := func(cap bool) []byte {
			n := func(i int) string {
				if !cap {
					return names[i]
				}
				if i == 0 && upper {
					return "ERROR"
				}
				return strings.ToUpper(names[i][:1]) + names[i][1:]
			}
			var b bytes.Buffer
			b.WriteString(`{"` + n(0) + `":{`)
			for i, v := range []string{msg, code, typ, param, st} {
				if v == "" && i > 0 {
					continue
				}
				if i > 0 {
					b.WriteByte(',')
				}
				s, _ := json.Marshal(v)
				b.WriteString(`"` + n(i+1) + `":`)
				b.Write(s)
			}
			b.WriteString("}}")
			return b.Bytes()
		}
		lower, capital := build(false), build(true)
		if !json.Valid(lower) || !json.Valid(capital) {
			t.Fatalf("invalid %s / %s", lower, capital)
		}
		lv := Classify(Response{Status: status, Body: lower})
		cv := Classify(Response{Status: status, Body: capital})
		if lv.Class != cv.Class || lv.Failed != cv.Failed {
			t.Fatalf("%s: %+v\n%s: %+v", lower, lv, capital, cv)
		}
		if m, c := Message(lower), Message(capital); m != c {
			t.Fatalf("messages %q and %q", m, c)
		}
	})
}

// FuzzFastMode: asksFastMode reads the request's top-level speed as JSON:
// exactly where encoding/json finds a top-level "speed" (its name
// spelled so, escapes decoded) whose value is the string "fast".
func FuzzFastMode(f *testing.F) {
	for _, s := range []string{
		`{"model":"claude-opus-5","max_tokens":1024,"speed":"fast","messages":[]}`,
		`{"speed" : "fast"}`, "{\"speed\":\n\"fast\"}", `{"spe\u0065d":"\u0066ast"}`, `{"speed":"FAST"}`,
		`{"messages":[{"content":"\"speed\":\"fast\""}]}`, `{"metadata":{"speed":"fast"}}`, `{"speed":"slow","speed":"fast"}`,
		`{"speed":["fast"]}`, `{"speed":"fast "}`, `{"sPeed":"fast"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, req []byte) {
		got := asksFastMode(req)
		if !utf8.Valid(req) || !json.Valid(req) {
			return
		}
		var top map[string]json.RawMessage
		if json.Unmarshal(req, &top) != nil {
			return
		}
		// Every top-level "speed", duplicates too (a reader may take
		// either: the first or the last).
		d := json.NewDecoder(bytes.NewReader(req))
		d.Token()
		any, all := false, true
		seen := false
		for d.More() {
			k, _ := d.Token()
			var v json.RawMessage
			if d.Decode(&v) != nil {
				return
			}
			if k != "speed" {
				continue
			}
			seen = true
			var s string
			fast := json.Unmarshal(v, &s) == nil && strings.EqualFold(s, "fast")
			any, all = any || fast, all && fast
		}
		if seen && all && !got {
			t.Fatalf("%s: fast mode asked, not read", req)
		}
		if got && !any {
			t.Fatalf("%s: fast mode read, not asked", req)
		}
	})
}
