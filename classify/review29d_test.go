package classify

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Hostile review 29d: d06cd81 (vocabulary round 29, last wave). Each test
// fails at bc99a87.

const chat29d = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

// d06cd81 adds "i/o timeout" and "handshake timeout" to timeoutPhrases with
// no check of whose host timed out. A relay that fetches the client's image
// URL (new-api must download it for Gemini and Claude channels) answers a
// 500 naming that URL and Go's transport timer: the client's slow host, not
// the endpoint. As timeout it counts against the endpoint's health, the walk
// replays it at every other endpoint (each relay fetches the same host), and
// failure_threshold of them cools endpoints for everyone. The existing
// "download … timeout" guard (clientThing) needs the words within 120 bytes:
// a presigned URL (real in new-api#4292) is longer, and a bare Go error
// ("Get \"<url>\": …") has no "download" or "fetch" word at all.
func TestReview29dClientURLTransportTimeout(t *testing.T) {
	// new-api#4292's URL and message, verbatim but for the Go error's tail
	// ("connect: connection timed out" there; "i/o timeout" is what a
	// net.Dialer with a Timeout returns, the tail d06cd81 itself quotes).
	url := "https://xxx.xxx.xxx/lobe/files/493430/0eb1b999-ce8b-4de4-af08-0a4628f47e9c.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Content-Sha256=UNSIGNED-PAYLOAD&X-Amz-Credential=rustfs%2F20260416%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260416T145258Z&X-Amz-Expires=7200&X-Amz-Signature=b56a88aa108aa06201cb9050380fb29101cc8141583bc45321d718dad09db4ee&X-Amz-SignedHeaders=host&x-id=GetObject"
	req := func(u string) string {
		b, _ := json.Marshal(map[string]any{"model": "gemini-2.5-flash", "messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "what is in this picture?"},
			map[string]any{"type": "image_url", "image_url": map[string]any{"url": u}},
		}}}})
		return string(b)
	}
	body := func(msg string) string {
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "new_api_error", "param": "", "code": nil}})
		return string(b)
	}
	short := "https://cdn.example.com/cat.png"
	runHostile(t, []hostileCase{
		{name: "new-api download of a presigned image url, i/o timeout", status: 500,
			body: body("error getting file type: failed to download file from " + url + `: Get "` + url + `": dial tcp 223.167.74.10:443: i/o timeout (request id: 20260416145300123)`),
			req:  req(url), model: "gemini-2.5-flash", want: Unknown},
		{name: "a relay's bare Go error on the client's image url, tls handshake timeout", status: 500,
			body: body(`Get "` + short + `": net/http: TLS handshake timeout`),
			req:  req(short), model: "gemini-2.5-flash", want: Unknown},
		{name: "a relay's bare Go error on the client's image url, i/o timeout", status: 500,
			body: body(`Head "` + short + `": dial tcp 93.184.216.34:443: i/o timeout`),
			req:  req(short), model: "gemini-2.5-flash", want: Unknown},
		// Must still hold: the relay's own upstream (a URL the client never
		// sent) not reached in time is the endpoint's timeout.
		{name: "relay's upstream tls handshake timeout", status: 500,
			body: `{"error":{"message":"do request failed: Post \"https://api.moonshot.cn/v1/chat/completions\": net/http: TLS handshake timeout","type":"do_request_failed"}}`,
			req:  req(short), model: "moonshot-v1-8k", want: Timeout},
	})
}

// d06cd81 adds {a: "too many images", notRate: true} and documents the
// media-count rules as "not at a 429". But phrases.go already holds a plain
// {a: "too many images", class: Overflow} further down (017f3da): when the
// notRate row is passed over on a 429, the older row matches the same words
// and decides, so the notRate is dead. "maximum number of images|files|
// documents" carry no notRate at all. A throttle that counts media becomes
// overflow: the endpoint is not cooled for its Retry-After and the next
// requests keep landing on it.
func TestReview29dMediaThrottleAt429(t *testing.T) {
	ra := http.Header{"Retry-After": {"60"}}
	runHostile(t, []hostileCase{
		{name: "too many images at a 429 with a wait", status: 429, header: ra,
			body: `{"error":{"message":"Too many images generated. Please wait 60 seconds."}}`,
			req:  chat29d, model: "m", want: RateLimited},
		{name: "too many images in the last minute at a 429", status: 429, header: ra,
			body: `{"error":{"message":"Rate limit: too many images in the last minute, try again in 60s"}}`,
			req:  chat29d, model: "m", want: RateLimited},
		{name: "maximum number of images per minute at a 429", status: 429, header: ra,
			body: `{"error":{"message":"Maximum number of images per minute exceeded."}}`,
			req:  chat29d, model: "m", want: RateLimited},
		{name: "maximum number of files per minute at a 429", status: 429, header: ra,
			body: `{"error":{"message":"Maximum number of files per minute exceeded."}}`,
			req:  chat29d, model: "m", want: RateLimited},
	})
}

// The media-count phrases read no period: a day's or a plan's image
// allowance at a 403 (the very wording vocab29_test.go pins at a 429, "Image
// limit exceeded for today") is overflow, so the provider account is neither
// cooled nor paged and every request keeps spending an attempt on it. Before
// d06cd81 it was forbidden (status:403), which at least counts.
func TestReview29dMediaAllowanceOfAPeriod(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a day's image allowance at a 403", status: 403,
			body: `{"error":{"message":"Image limit exceeded for today"}}`,
			req:  chat29d, model: "m", notAny: []Class{Overflow}},
		{name: "a month's image allowance at a 403", status: 403,
			body: `{"error":{"message":"You have reached the maximum number of images for this month. Upgrade your plan for more images."}}`,
			req:  chat29d, model: "m", notAny: []Class{Overflow}},
	})
}

// "allowed per request" (Overflow) reads any cap worded per request, also
// the structural "only one X is allowed per request" that no bigger
// endpoint lifts: the answer tells the client a retry may help
// (x-should-retry for overflow) where nothing proves more than unknown.
func TestReview29dOnlyOneAllowedPerRequestIsNoOverflow(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "only one of two members", status: 400,
			body: `{"error":{"message":"Only one of 'prompt' or 'messages' is allowed per request."}}`,
			req:  `{"model":"m","prompt":"hi","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{Overflow}},
		{name: "only one tool_choice", status: 400,
			body: `{"error":{"message":"Only one tool_choice is allowed per request."}}`,
			req:  chat29d, model: "m", notAny: []Class{Overflow}},
	})
}
