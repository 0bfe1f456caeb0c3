package gemini

import (
	"errors"
	"strings"
	"testing"
)

func TestTranslateEmbedOne(t *testing.T) {
	got, err := TranslateEmbed([]byte(`{"model":"models/whatever","content":{"role":"user","parts":[{"text":"a"},{"text":"b"}]},
		"taskType":"RETRIEVAL_QUERY","title":"t","output_dimensionality":64}`), "emb", false)
	if err != nil || string(got) != `{"model":"emb","input":["a\nb"],"dimensions":64}` {
		t.Fatalf("%s %v", got, err)
	}
}

func TestTranslateEmbedBatch(t *testing.T) {
	got, err := TranslateEmbed([]byte(`{"requests":[
		{"model":"models/emb","content":{"parts":[{"text":"one"}]},"taskType":"RETRIEVAL_DOCUMENT","title":"doc"},
		{"model":"models/emb","content":{"parts":[{"text":"two"}]}}]}`), "emb", true)
	if err != nil || string(got) != `{"model":"emb","input":["one","two"]}` {
		t.Fatalf("%s %v", got, err)
	}
}

func TestTranslateEmbedRefuses(t *testing.T) {
	for _, c := range []struct {
		body  string
		batch bool
		want  string
	}{
		{`{"requests":[{"model":"models/other","content":{"parts":[{"text":"x"}]}}]}`, true, `requests[0].model: is "models/other"`},
		{`{"requests":[{"content":{"parts":[{"text":"x"}]}}]}`, true, `requests[0].model: is ""`},
		{`{"requests":[{"model":"emb","content":{"parts":[{"text":"x"}]}}]}`, true, `must name the model of the URL, "models/emb"`},
		{`{"requests":[]}`, true, "requests: must be a non-empty list"},
		{`{}`, true, "requests: must be a non-empty list"},
		{`{"requests":[{"model":"models/emb","content":{"parts":[{"text":"x"}]},"outputDimensionality":8},
		   {"model":"models/emb","content":{"parts":[{"text":"y"}]}}]}`, true, "requests[1].outputDimensionality: differs from requests[0]'s"},
		{`{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}}`, false, `parts[0]: holds "inlineData"`},
		{`{"content":{"parts":[{"text":""}]}}`, false, "request.content: has no text to embed"},
		{`{"taskType":"RETRIEVAL_QUERY"}`, false, "request.content: is required"},
		{`{"content":{"parts":[{"text":"x"}]},"outputDimensionality":0}`, false, "outputDimensionality: must be a positive whole number"},
		{`{"content":{"parts":[{"text":"x"}]},"taskType":3}`, false, "request.taskType: must be a string"},
		{`[1]`, false, "request: must be an object"},
	} {
		_, err := TranslateEmbed([]byte(c.body), "emb", c.batch)
		var ge *Error
		if !errors.As(err, &ge) || ge.Unsupported || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
		}
	}
	many := `{"requests":[` + strings.Repeat(`{"model":"models/emb","content":{"parts":[{"text":"x"}]}},`, MaxEmbedRequests) + `{}]}`
	if _, err := TranslateEmbed([]byte(many), "emb", true); err == nil || !strings.Contains(err.Error(), "at most 2048") {
		t.Errorf("2049 requests: %v", err)
	}
}

func TestEmbedAnswer(t *testing.T) {
	list := `{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.3,0.4]},{"object":"embedding","index":0,"embedding":[1,0]}],"model":"m","usage":{"prompt_tokens":2,"total_tokens":2}}`
	got, err := EmbedAnswer([]byte(list), true)
	if err != nil || string(got) != `{"embeddings":[{"values":[1,0]},{"values":[0.3,0.4]}]}` {
		t.Fatalf("%s %v", got, err)
	}
	one := `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"model":"m"}`
	if got, err = EmbedAnswer([]byte(one), false); err != nil || string(got) != `{"embedding":{"values":[0.6,0.8]}}` {
		t.Fatalf("%s %v", got, err)
	}
	for _, bad := range []string{list, `{"data":[{"index":0,"embedding":"AACAPw=="}]}`, `{"data":[{"index":3,"embedding":[1]}]}`, `not json`} {
		if _, err := EmbedAnswer([]byte(bad), false); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
