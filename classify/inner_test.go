package classify

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestCorpusReadsQuotedAnswers: every real JSON error answer in the corpus,
// quoted whole by a relay in the two shapes relays use — OpenRouter's
// metadata.raw and LiteLLM's exception lead — with the same status, gets
// the verdict it gets as written. The one difference allowed is the one the
// relayed reading keeps on purpose: a request field a relayed answer names
// does not outweigh a capability gap it states (decide.go), so such an
// answer moves on (unknown) where, sent directly, it stops (bad_request).
func TestCorpusReadsQuotedAnswers(t *testing.T) {
	shapes := map[string]string{
		"openrouter": `{"error":{"message":"Provider returned error","code":%d,"metadata":{"raw":%s,"provider_name":"X"}}}`,
		"litellm":    `{"error":{"message":"litellm.APIError: UpstreamException - "+%s,"type":null,"param":null,"code":"%d"}}`,
	}
	n := 0
	for name, c := range loadCorpus(t) {
		if c.Stream || c.Status < 400 || c.Miss != "" || len(c.Headers) > 0 || !json.Valid([]byte(c.Body)) || c.Provider == "openrouter" || c.Provider == "litellm" {
			continue
		}
		want := Classify(c.response())
		q, _ := json.Marshal(c.Body)
		for shape, f := range shapes {
			var body string
			if shape == "litellm" {
				q, _ := json.Marshal("litellm.APIError: UpstreamException - " + c.Body)
				body = fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, q, c.Status)
			} else {
				body = fmt.Sprintf(f, c.Status, q)
			}
			r := c.response()
			r.Body = []byte(body)
			got := Classify(r)
			if got.Class == want.Class && got.Failed == want.Failed {
				continue
			}
			if want.Class == BadRequest && (want.Evidence == "openai:param" || want.Evidence == "message:field-path") &&
				got.Class == Unknown && len(got.Evidence) > 7 && got.Evidence[:7] == "phrase:" {
				continue
			}
			if nestedQuote(c) {
				continue
			}
			t.Errorf("%s quoted by %s: %s (%s); as written, %s (%s)", name, shape, got.Class, got.Evidence, want.Class, want.Evidence)
		}
		n++
	}
	if n < 500 {
		t.Fatalf("only %d corpus answers quoted", n)
	}
}

// TestQuotedAnswerIsNoClientText: an object a relay's text holds is read as
// the upstream's answer only where it is the text, or follows a relay's
// lead; never where the client's request holds it, nor inside a sentence
// that quotes what the client sent.
func TestQuotedAnswerIsNoClientText(t *testing.T) {
	// The upstream's 400 names the field at fault only in its structure
	// (param): read as text it says nothing, so only the quoted reading
	// makes it bad_request.
	const inner = `{\"error\":{\"message\":\"Bad value.\",\"type\":\"invalid_request_error\",\"param\":\"logit_bias\"}}`
	cases := []struct {
		name, body, req string
		want            Class
	}{
		{"raw", `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"` + inner + `"}}}`, "", BadRequest},
		{"lead", `{"error":{"message":"litellm.BadRequestError: OpenAIException - ` + inner + `"}}`, "", BadRequest},
		{"sdk lead", `{"detail":"Error code: 400 - ` + inner + `"}`, "", BadRequest},
		{"sdk lead, trailing words", `{"detail":"Error code: 400 - ` + inner + ` Received Model Group=gpt"}`, "", BadRequest},
		{"the client's own", `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"` + inner + `"}}}`,
			`{"messages":[{"role":"user","content":"{\"error\":{\"message\":\"Bad value.\",\"type\":\"invalid_request_error\",\"param\":\"logit_bias\"}}"}]}`, Unknown},
		{"in a sentence", `{"error":{"message":"The service could not use '` + inner + `' today"}}`, "", Unknown},
		{"no relay's lead", `{"error":{"message":"upstream said ` + inner + `"}}`, "", Unknown},
	}
	for _, c := range cases {
		r := Response{Status: 400, Body: []byte(c.body), Dialect: "openai"}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
