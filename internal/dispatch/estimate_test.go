package dispatch

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
)

// The input estimate client limits count for an attempt of unknown usage
// (docs/config.md, client_keys): text at 4 bytes a token, an inline image
// or file at imageTokens, whatever its size.
func TestInputEstimate(t *testing.T) {
	img := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 44000) // ~1 MiB of base64
	prompt := strings.Repeat("tell me a story ", 64)         // 1,024 bytes of text
	for _, c := range []struct {
		name string
		body string
		want int
	}{
		// Every string's bytes count, keys included: model m messages role user content, the prompt.
		{"text", `{"model":"m","messages":[{"role":"user","content":"` + prompt + `"}]}`, (5 + 1 + 8 + 4 + 4 + 7 + 1024 + 3) / 4},
		{"data URL (OpenAI image_url)", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + img + `"}}]}]}`,
			(8+4+4+7+4+9+9+3+3)/4 + imageTokens},
		{"base64 data (Anthropic, Gemini inline)", `{"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"}}]}]}`,
			(8+4+4+7+4+5+6+4+6+10+9+4+3)/4 + imageTokens},
		{"short base64-like word is text", `{"k":"QUJD"}`, (1 + 4 + 3) / 4},
		// A message's text is text, whatever its characters (hostile 52).
		{"long base64 text in a message", `{"content":"` + img + `"}`, (7 + len(img) + 3) / 4},
		{"OpenAI file_data", `{"file":{"file_data":"` + img + `"}}`, (4+9+3)/4 + imageTokens},
		// An escape is never base64: the string is text, counted as sent (7 bytes before the A's).
		{"escapes stay text", `{"k":"a\"b\\c` + strings.Repeat("A", 2000) + `"}`, (1 + 7 + 2000 + 3) / 4},
		// An image or file named by reference is fetched and billed as inline data (review 33b);
		// the member names still count as text, the reference does not.
		{"image by URL (OpenAI image_url object)", `{"image_url":{"url":"https://x.example/a.jpg"}}`, (9+3+3)/4 + imageTokens},
		{"image by URL (Responses input_image)", `{"image_url" : "https://x.example/a.jpg"}`, (9+3)/4 + imageTokens},
		{"file by id (OpenAI, Anthropic)", `{"file":{"file_id":"file-abc"}}`, (4+7+3)/4 + imageTokens},
		{"Gemini fileData", `{"fileData":{"mimeType":"application/pdf","fileUri":"gs://b/d.pdf"}}`, (8+8+15+7+3)/4 + imageTokens},
		{"a value after a reference is text", `{"url":"https://x.example/a.jpg","alt":"cat"}`, (3+3+3+3)/4 + imageTokens},
		{"a name is not a reference", `{"url":{"type":"x"}}`, (3 + 4 + 1 + 3) / 4},
	} {
		if got := inputEstimate([]byte(c.body)); got != c.want {
			t.Errorf("%s: %d tokens, want %d", c.name, got, c.want)
		}
	}
	// The byte count it replaced made the image ~262,000 tokens.
	if got := inputEstimate([]byte(`{"url":"data:image/png;base64,` + img + `"}`)); got > 2*imageTokens {
		t.Errorf("a 1 MiB image: %d tokens", got)
	}
}

// Any prefix of a body (a cut, a hostile or broken one) is estimated
// without a panic and within bounds.
func TestInputEstimateOfEveryPrefix(t *testing.T) {
	for _, body := range []string{`{"a":"b\"c\\"}`, `{"u":"data:image/png;base64,AAAA","t":"x y"}`, `"data:,"`, `"\`,
		`{"d":"` + strings.Repeat("QUJD", 300) + `"}`} {
		for n := 0; n <= len(body); n++ {
			b := []byte(body[:n])
			if got := inputEstimate(b); got < 0 || got > (len(b)+3)/4+imageTokens*(len(b)/5+1) {
				t.Fatalf("%q: estimate %d", b, got)
			}
		}
	}
}

// An estimate is made only for a metered call (sent non-nil): a gateway
// whose clients have no limits never reads the request for one.
func TestAccountEstimatesOnlyWhenMetered(t *testing.T) {
	tgt := &config.Target{Price: &config.Price{Input: 2, Output: 8}}
	billable := &outcome{billable: true}
	var a decision.Attempt
	account(&a, tgt, billable, nil, nil)
	if a.Estimate != nil || !a.CostUnknown {
		t.Errorf("unmetered: estimate %+v, cost unknown %v", a.Estimate, a.CostUnknown)
	}
	a = decision.Attempt{}
	account(&a, tgt, billable, []byte(`{"messages":"12345678"}`), []byte(`{"messages":"12345678"}`))
	if e := a.Estimate; e == nil || e.InputTokens != 4 || e.USD != 4*2/1e6 || !a.CostUnknown {
		t.Errorf("metered: estimate %+v, cost unknown %v", e, a.CostUnknown)
	}
	a = decision.Attempt{}
	account(&a, tgt, &outcome{}, []byte(`{"messages":"12345678"}`), []byte(`{"messages":"12345678"}`))
	if a.Estimate != nil {
		t.Errorf("not billable: estimate %+v", a.Estimate)
	}
}
