package server_test

import (
	"strings"
	"testing"
)

// The classifier reads an answer's first 4 KiB; a Gemini 3 answer may open
// with a thoughtSignature of several KB, so its finishReason lies past
// them. A whole answer that holds nothing for the client is then judged by
// its digest (its prompt feedback and each candidate's finish, as sent):
// a SAFETY block is the same refusal however long its signature, handed to
// the client, replayed nowhere and counted against no one; an OTHER with
// nothing said moves on, as it does when short (docs/behaviour.md,
// "Classes"). Before, a block past the first 4 KiB failed as the endpoint's
// server_error ("decode": counted, retried, then replayed at the next
// vendor) and an OTHER was an empty success, billed; streamed, the block
// was an unknown error event, replayed at the next vendor.
func TestGeminiOutcomePastTheFirst4KiB(t *testing.T) {
	sig := `"thoughtSignature":"` + strings.Repeat("Q2lRQjBlMktiMVl4N1ozbEZxOXYyYldjMFFtVjhyM2RKNW5Uej", 120) + `"`
	usage := `"usageMetadata":{"promptTokenCount":5,"thoughtsTokenCount":40,"totalTokenCount":45}`
	answer := func(finish string) string {
		return `{"candidates":[{"content":{"parts":[{"text":"",` + sig + `}],"role":"model"},"finishReason":"` + finish + `","index":0}],` + usage + `}`
	}
	if n := len(answer("SAFETY")); n < 6000 {
		t.Fatalf("the answer is %d bytes, want its finish well past 4 KiB", n)
	}
	t.Run("SAFETY", func(t *testing.T) {
		url, recs, bCalls := r38aGateway(t, answer("SAFETY"))
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, false))
		d := recs.Wait(t, 1)
		first := d.Attempts[0]
		if resp.StatusCode != 400 || !strings.Contains(body, `"code":"content_filter"`) || bCalls.Load() != 0 || first.Class != "refusal" || first.Counted {
			t.Errorf("want the block handed to the client (400 content_filter), uncounted, not replayed at b: status %d, b called %d times, attempts %s; body %.300s",
				resp.StatusCode, bCalls.Load(), r38aAttempts(d), body)
		}
		if first.Evidence != "gemini:finishReason=SAFETY" || first.Usage == nil || first.Usage.PromptTokens != 5 || first.CostUSD == nil {
			t.Errorf("want the finish as evidence and the block's tokens billed: %s", r38aAttempts(d))
		}
	})
	t.Run("OTHER", func(t *testing.T) {
		url, recs, bCalls := r38aGateway(t, answer("OTHER"))
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, false))
		d := recs.Wait(t, 1)
		if resp.StatusCode != 200 || !strings.Contains(body, "from b") || bCalls.Load() != 1 || d.Attempts[0].Class != "unknown" {
			t.Errorf("want gem's empty OTHER to move on to b: status %d, attempts %s; body %.300s", resp.StatusCode, r38aAttempts(d), body)
		}
	})
	// Streamed, the same chunk is one event: it is judged by its digest too.
	t.Run("SAFETY streamed", func(t *testing.T) {
		url, recs, bCalls := r38aGateway(t, answer("SAFETY"))
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, true))
		d := recs.Wait(t, 1)
		first := d.Attempts[0]
		if resp.StatusCode != 400 || !strings.Contains(body, `"code":"content_filter"`) || bCalls.Load() != 0 || first.Class != "refusal" || first.Counted {
			t.Errorf("want the streamed block handed to the client, uncounted, not replayed at b: status %d, b called %d times, attempts %s; body %.300s",
				resp.StatusCode, bCalls.Load(), r38aAttempts(d), body)
		}
	})
	t.Run("OTHER streamed", func(t *testing.T) {
		url, recs, bCalls := r38aGateway(t, answer("OTHER"))
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, true))
		d := recs.Wait(t, 1)
		if resp.StatusCode != 200 || !strings.Contains(body, "from b") || bCalls.Load() != 1 || d.Attempts[0].Class != "unknown" {
			t.Errorf("want gem's streamed empty OTHER to move on to b: status %d, attempts %s; body %.300s", resp.StatusCode, r38aAttempts(d), body)
		}
	})
	t.Run("STOP with text", func(t *testing.T) {
		long := `{"candidates":[{"content":{"parts":[{"text":"",` + sig + `},{"text":"Hello there"}],"role":"model"},"finishReason":"STOP","index":0}],` + usage + `}`
		url, recs, bCalls := r38aGateway(t, long)
		resp, body := postWith(t, url, "/v1/chat/completions", r38aBody(r38aDoors[0].body, false))
		d := recs.Wait(t, 1)
		if resp.StatusCode != 200 || !strings.Contains(body, "Hello there") || bCalls.Load() != 0 || d.Outcome != "ok" {
			t.Errorf("a long answer with text is an answer: status %d, attempts %s; body %.300s", resp.StatusCode, r38aAttempts(d), body)
		}
	})
}
