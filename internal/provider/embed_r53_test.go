package provider

import (
	"strings"
	"testing"
)

// A flat token array is one input, however long: the OpenAI cookbook
// (examples/Embedding_long_inputs.ipynb) and openai-go's OfArrayOfTokens
// send one text of up to 8,191 tokens so. Before round 53 each token
// counted as an input and a 3,000-token text was refused as more than
// 2,048 (probe 53b).
func TestFlatTokenArrayIsOneInput(t *testing.T) {
	toks := strings.TrimSuffix(strings.Repeat("1234,", 3000), ",")
	e, err := ParseEmbeddings([]byte(`{"input":[` + toks + `]}`))
	if err != nil || !e.Tokens || len(e.Texts) != 0 {
		t.Fatalf("one 3,000-token text: %+v, %v", e, err)
	}
	// A list of token arrays still counts each array, and 2,049 texts are
	// still too many.
	arrays := strings.TrimSuffix(strings.Repeat("[1,2],", MaxEmbeddingsInputs+1), ",")
	if _, err := ParseEmbeddings([]byte(`{"input":[` + arrays + `]}`)); err == nil || !strings.Contains(err.Error(), "more than 2048") {
		t.Fatalf("2,049 token arrays: %v", err)
	}
	texts := strings.TrimSuffix(strings.Repeat(`"a",`, MaxEmbeddingsInputs+1), ",")
	if _, err := ParseEmbeddings([]byte(`{"input":[` + texts + `]}`)); err == nil {
		t.Fatal("2,049 texts were taken")
	}
	// Tokens beside a token array, or beside a text, are no input OpenAI takes.
	for _, in := range []string{`[1,2,[3,4]]`, `[[3,4],1]`, `[1,"a"]`} {
		if _, err := ParseEmbeddings([]byte(`{"input":` + in + `}`)); err == nil {
			t.Errorf("input %s was taken", in)
		}
	}
}
