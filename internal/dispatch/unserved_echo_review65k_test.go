package dispatch

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// Review 65k. unservedPath keeps a status:404 to a passthrough unavailable
// when its body names the endpoint's model (review 65h: a gone model in
// words the classifier does not know). It read the whole body: text the
// client wrote and the upstream quoted back named the model as well as
// the upstream's own words did, so a client whose prompt holds the
// endpoint's model name made a server without /completions (a bare 404)
// cool the endpoint for unavailable_cooldown, its chat requests with it,
// for every client: the echo rule (docs/design.md, "Echoed text") says
// text the client supplied is no evidence. The upstream's own words naming
// the model still keep it unavailable, whatever the client wrote
// elsewhere.
func TestReview65kUnservedPathReadsNoEcho(t *testing.T) {
	const model = "llama-3"
	client := `{"model":"coder","prompt":["Compare llama-3 with qwen","# llama-3 notes\n"],"max_tokens":8}`
	bare := decision.UnservedPathEvidence("/completions", "completions")
	for body, want := range map[string]string{
		`{"detail":"Not Found"}`: bare,
		// A catch-all 404 that quotes the request it could not route.
		`{"detail":"Not Found","request":{"model":"llama-3","prompt":["Compare llama-3 with qwen","# llama-3 notes\n"]}}`: bare,
		// Words beside "not found" are no bare 404 (below), nor a gone model: unknown.
		`404 page not found: POST /v1/completions {"prompt":["Compare llama-3 with qwen"]}`: unreadPathEvidence[APICompletions],
		// The upstream's own words about the model, beside the echo or not.
		`{"error":{"message":"Deployment llama-3 has been retired"}}`:                                        "status:404",
		`{"error":{"message":"Deployment llama-3 has been retired"},"prompt":["Compare llama-3 with qwen"]}`: "status:404",
		`{"detail":"No deployment named LLAMA-3"}`:                                                           "status:404",
		// The model alone, where the client named it too: its echo.
		`{"error":"Not Found","model":"llama-3"}`: bare,
	} {
		if got := unservedEvidence(client, body, model); got != want {
			t.Errorf("%s: evidence %q, want %q", body, got, want)
		}
	}
	// A client that names no model but by its top-level model (the route,
	// here named as the model is): the body's name is the upstream's.
	for _, client := range []string{`{"model":"coder","prompt":"def f():"}`, `{"model":"llama-3","prompt":"def f():"}`} {
		if got := unservedEvidence(client, `{"error":"Not Found","model":"llama-3"}`, model); got != "status:404" {
			t.Errorf("client %s: evidence %q, want status:404", client, got)
		}
	}
}

// unservedEvidence is the evidence unservedPath gives a status:404 with
// body from the endpoint serving model, to a Completions request client.
func unservedEvidence(client, body, model string) string {
	w := &walk{call: &Call{Native: &Native{API: APICompletions, Body: []byte(client)}}}
	return w.unservedPath(classify.Verdict{Failed: true, Class: classify.Unavailable, Evidence: "status:404"}, &outcome{native: true}, []byte(body), model).Evidence
}

// Review 65k. unservedPath gave every status:404 to a declared passthrough
// path that does not name the model the evidence "status:404 (no words:
// …)", and the console's Unknowns and `--suggest` leave that evidence out
// (decision.UnservedPath, review 65i). But the classifier's status:404 is
// also a 404 in words it does not know: those were recorded as having no
// words and hidden from the one place an operator learns of words to
// place. Only a bare answer (no message, or one in the words every web
// framework's missing route uses; a web server's HTML page) is the wrong
// declaration the evidence names; a worded one still cools nothing (it is
// unknown) but stays in view.
func TestReview65kWordedUnserved404StaysInView(t *testing.T) {
	client := `{"model":"coder","prompt":"def f():"}`
	bare := decision.UnservedPathEvidence("/completions", "completions")
	for _, body := range []string{``, "  \n", `{}`, `{"error":{}}`, `Not Found`, `{"detail":"Not Found"}`, `404 page not found`,
		`{"timestamp":"2024-01-01T00:00:00.000+00:00","status":404,"error":"Not Found","path":"/v1/completions"}`,
		"<!DOCTYPE html>\n<html><body><pre>Cannot POST /v1/completions</pre></body></html>",
		`{"error":{"message":"404 Not Found","type":"invalid_request_error","code":null}}`} {
		if got := unservedEvidence(client, body, "llama-3"); got != bare {
			t.Errorf("%q: evidence %q, want the unserved path's", body, got)
		}
	}
	for _, body := range []string{`{"error":{"message":"This deployment has been retired"}}`, `{"err_msg":"deployment retired"}`,
		`Your subscription does not include this endpoint`} {
		w := &walk{call: &Call{Native: &Native{API: APICompletions, Body: []byte(client)}}}
		v := w.unservedPath(classify.Verdict{Failed: true, Class: classify.Unavailable, Evidence: "status:404"}, &outcome{native: true}, []byte(body), "llama-3")
		if v.Class != classify.Unknown || decision.UnservedPath(v.Evidence) || !strings.HasPrefix(v.Evidence, "status:404") {
			t.Errorf("%q: %s %q, want unknown in view (not the unserved path's evidence)", body, v.Class, v.Evidence)
		}
	}
}
