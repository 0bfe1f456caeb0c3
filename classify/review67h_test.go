package classify

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Review 67h: a beta gate is the request's only where the client asked
// for the beta it names. Claude Code asks for several betas on every
// request; the one an operator's provider headers add (context-1m, on an
// account below its tier) fails every request there and must stay
// forbidden (counted, cooled, paged), not read unknown because the client
// asked for some other beta.
func TestReview67hBetaOfTheOperatorStaysForbidden(t *testing.T) {
	const plain = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	longctx := `{"type":"error","error":{"type":"invalid_request_error","message":"The long context beta is not yet available for this subscription."},"request_id":"req_011CYRQ9U8E3bhA6nzRupvui"}`
	for _, c := range []struct {
		name, req string
		want      Class
	}{
		{"another beta", plain + "\ninterleaved-thinking-2025-05-14\n2023-06-01", Forbidden},
		{"Claude Code's betas", plain + "\nclaude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14\n2023-06-01", Forbidden},
		{"the beta named", plain + "\ninterleaved-thinking-2025-05-14, context-1m-2025-08-07\n2023-06-01", Unknown},
	} {
		if v := classify56(400, longctx, c.req, false); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}

// Review 67h: "vision" inside "Provisioned" is no kind of input. A client
// that adds an image to every request turned an account-wide gate on
// provisioned throughput into unknown (nothing counted or cooled).
func TestReview67hProvisionedIsNoVision(t *testing.T) {
	const image = `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is it"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	for _, body := range []string{
		`{"error":{"message":"Provisioned throughput is not available for this account."}}`,
		`{"error":{"message":"Provisioned throughput is not enabled for this subscription."}}`,
	} {
		if v := classify56(403, body, image, false); v.Class != Forbidden {
			t.Errorf("%s: %s (%s), want forbidden", body, v.Class, v.Evidence)
		}
	}
	// Still read: the plural and the words as they stand.
	if v := classify56(403, `{"error":{"message":"Images are not enabled for this organization"}}`, image, false); v.Class != Unknown {
		t.Errorf("images: %s (%s), want unknown", v.Class, v.Evidence)
	}
}

// Review 67h: LiteLLM throttling the operator's end user (its provider
// headers name it: the whole account at the relay) is rate_limited, even
// where the client's prompt text opens with that id: only a member LiteLLM
// reads the end user from ("user", "safety_identifier", "user_id") names
// the client's own (docs: "Nothing the request holds only inside its text
// counts").
func TestReview67hEndUserInThePromptIsNotTheClients(t *testing.T) {
	throttle := `{"error":{"message":"Rate limit exceeded for end_user: detour-prod. Limit type: requests. Current limit: 5, Remaining: 0.","type":"None","param":"None","code":"429"}}`
	for _, req := range []string{
		`{"model":"m","user":"u-1","messages":[{"role":"user","content":"detour-prod"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"detour-prod says hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"{\"user\":\"detour-prod\"}"}]}`,
	} {
		if v := classify56(429, throttle, req, false); v.Class != RateLimited {
			t.Errorf("%s: %s (%s), want rate_limited", req, v.Class, v.Evidence)
		}
	}
	if v := classify56(429, throttle, `{"model":"m","user": "detour-prod","messages":[]}`, false); v.Class != BadRequest {
		t.Errorf("the client's user: %s (%s), want bad_request", v.Class, v.Evidence)
	}
}

// Review 67h: the feature gate's passes over the request are bounded. A
// 4 KiB forbidden answer repeating a media gate, against a request of
// 8 MB, made thirteen passes per sentence: 2.8 s per classification
// (0.05 s without the gate's words).
func TestReview67hFeatureGateCostIsBounded(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a\"", 4<<20) + `"}]}`)
	timed := func(unit string) time.Duration {
		var b bytes.Buffer
		b.WriteString(`{"error":{"message":"`)
		for b.Len() < MaxBody-80 {
			b.WriteString(unit)
		}
		b.WriteString(`"}}`)
		st := time.Now()
		Classify(Response{Status: 403, Body: b.Bytes(), Request: req, Model: "m"})
		return time.Since(st)
	}
	base := timed(`. image is not allowed here`)
	for _, unit := range []string{`. image is not enabled for`, `. a_bcd a_bce a_bcf a_bcg is not enabled for`,
		`. The long context beta is not available for`} {
		// 56 times the base before the mend; 20 times and a second
		// leaves room for a busy machine's noise between two timings.
		if d := timed(unit); d > 20*base+time.Second {
			t.Errorf("%q: %v (no gate: %v)", unit, d, base)
		}
	}
}

// Review 67h: the gate's new reads (a beta's words, the media flag, the
// end-user members) allocate nothing.
func TestReview67hGateReadsAllocate0(t *testing.T) {
	longctx := `{"type":"error","error":{"type":"invalid_request_error","message":"The long context beta is not yet available for this subscription."}}`
	for _, c := range []struct {
		st        int
		body, req string
	}{
		{400, longctx, `{"model":"m","messages":[]}` + "\ninterleaved-thinking-2025-05-14, fine-grained-tool-streaming-2025-05-14\n2023-06-01"},
		{400, longctx, `{"model":"m","messages":[]}` + "\ncontext-1m-2025-08-07\n2023-06-01"},
		{403, `{"error":{"message":"Images are not enabled for this organization"}}`, `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`},
		{429, `{"error":{"message":"Rate limit exceeded for end_user: u-1. Limit type: requests."}}`, `{"model":"m","user":"u-1","messages":[]}`},
	} {
		r := Response{Status: c.st, Body: []byte(c.body), Request: []byte(c.req), Model: "m"}
		Classify(r)
		if n := testing.AllocsPerRun(50, func() { Classify(r) }); n != 0 {
			t.Errorf("%d %s: %v allocs", c.st, c.body, n)
		}
	}
}
