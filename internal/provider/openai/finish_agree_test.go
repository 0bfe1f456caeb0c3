package openai

import (
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"testing"

	"github.com/detour-llm/detour/classify"
)

// classifyFinishWords reads the keys of classify's vendorFinishes table
// from its source: the adapter may not import classify (the import rules),
// and the classifier keeps its table unexported, so the two lists are held
// equal here rather than by one importing the other.
func classifyFinishWords(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../../../classify/blocks.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "vendorFinishes" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			t.Fatal("classify's vendorFinishes is no longer a map literal")
		}
		for _, e := range lit.Elts {
			k, err := strconv.Unquote(e.(*ast.KeyValueExpr).Key.(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			words = append(words, k)
		}
		return false
	})
	if len(words) == 0 {
		t.Fatal("classify/blocks.go has no vendorFinishes table")
	}
	sort.Strings(words)
	return words
}

// TestVendorFinishesAgreeWithClassify: every vendor finish word the
// classifier reads is one the adapter writes as OpenAI's or fails as an
// error event, and the other way round, with the same meaning: a word
// classify files as a refusal reaches the client as content_filter, one it
// files as the window as length, one it files as the provider's failure
// ends the stream as an error. Round 57's closing note left the two lists
// side by side with no test holding them equal.
func TestVendorFinishesAgreeWithClassify(t *testing.T) {
	words := classifyFinishWords(t)
	seen := map[string]bool{}
	for _, w := range words {
		seen[w] = true
		r := classify.Classify(classify.Response{Status: 200,
			Body: []byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"` + w + `"}]}`)})
		to, rewritten := vendorFinishes[w]
		switch r.Class {
		case classify.Refusal:
			if to != "content_filter" {
				t.Errorf("%s: classify files it %s, the adapter writes %q", w, r.Class, to)
			}
		case classify.ContextLength:
			if to != "length" {
				t.Errorf("%s: classify files it %s, the adapter writes %q", w, r.Class, to)
			}
		case classify.ServerError:
			if rewritten || !vendorFailed([]byte(w)) {
				t.Errorf("%s: classify files it %s, the adapter does not fail it", w, r.Class)
			}
		case classify.Unknown, classify.Timeout, classify.RateLimited, classify.Quota, classify.Unavailable,
			classify.Auth, classify.Forbidden, classify.Overflow, classify.BadRequest:
			t.Errorf("%s: classify files it %s, which no adapter rule covers", w, r.Class)
		}
	}
	for w := range vendorFinishes {
		if !seen[w] {
			t.Errorf("the adapter rewrites %q, which classify does not read", w)
		}
	}
	for w := range vendorFailures {
		if !seen[w] {
			t.Errorf("the adapter fails %q, which classify does not read", w)
		}
	}
}
