package classify

import (
	"net/http"
	"testing"
)

// TestWindowPeriod: a limit over "<N requests|tokens> in <duration>
// window" is a throttle when the window is under an hour and an allowance
// when it is a day or more, whatever the quota words or code beside it
// (docs/behaviour.md, "More signals, by class"). LocalAI's per-user quota
// rules send every window with type quota_exceeded at a 429
// (mudler/LocalAI core/http/auth/quota.go: "Request quota exceeded for %s:
// %d/%d requests in %s window", formatWindowDuration: 1m, 5m, 1h, 6h, 1d,
// 7d, 30d, else Go's Duration.String); Go rate limiters write the window
// with Duration.String ("rate limit exceeded: %d requests in %s window
// (max %d)"). Each positive failed before the reader.
func TestWindowPeriod(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	local := func(msg string) string {
		return `{"error":{"code":429,"message":"` + msg + `","type":"quota_exceeded"}}`
	}
	retry60 := http.Header{"Retry-After": []string{"60"}}
	runHostile(t, []hostileCase{
		{name: "localai one-minute request window", status: 429, header: retry60,
			body: local("Request quota exceeded for all models: 60/60 requests in 1m window"), req: chat, model: "qwen3", want: RateLimited},
		{name: "localai one-minute window for one model", status: 429,
			body: local("Request quota exceeded for model qwen3: 60/60 requests in 1m window"), req: chat, model: "qwen3", want: RateLimited},
		{name: "localai five-minute token window", status: 429,
			body: local("Token quota exceeded for all models: 5000/5000 tokens in 5m window"), req: chat, model: "m", want: RateLimited},
		{name: "go duration string window", status: 429,
			body: `{"error":{"message":"rate limit exceeded: 100 requests in 1m0s window (max 100)"}}`, req: chat, model: "m", want: RateLimited},
		{name: "seconds window", status: 429,
			body: local("Request quota exceeded for all models: 10/10 requests in 30s window"), req: chat, model: "m", want: RateLimited},

		// Near-misses: a day's or a month's window is an allowance spent; a
		// window the client wrote is no evidence; a model's context window
		// is no period.
		{name: "localai thirty-day token window stays quota", status: 429,
			body: local("Token quota exceeded for all models: 1000000/1000000 tokens in 30d window"), req: chat, model: "m", want: Quota},
		{name: "localai one-day window stays quota", status: 429,
			body: local("Token quota exceeded for model qwen3-8b: 500000/500000 tokens in 1d window"), req: chat, model: "m", want: Quota},
		{name: "a window the client wrote", status: 429,
			body: local("Request quota exceeded for all models: 60/60 requests in 1m window"),
			req:  `{"model":"m","messages":[{"role":"user","content":"why do I get Request quota exceeded for all models: 60/60 requests in 1m window"}]}`, model: "m", want: Quota},
		{name: "copilot's quota_exceeded at 402 stays quota", status: 402,
			body: `{"error":{"message":"You have no quota","code":"quota_exceeded"}}`, req: chat, model: "m", want: Quota},
		{name: "a bare quota_exceeded at 429 stays quota", status: 429,
			body: local("Quota exceeded"), req: chat, model: "m", want: Quota},
		{name: "a million-token context window is no period", status: 400,
			body: `{"error":{"message":"prompt exceeds the 1M window of this model","code":"context_length_exceeded"}}`, req: chat, model: "m", want: ContextLength},
	})
}
