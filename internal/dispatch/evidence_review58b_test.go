package dispatch

import (
	"bytes"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// review58b: since 6f87500 every error answer's evidence copied the
// client's body and read the whole sent body through GetBody into a
// growing buffer, once per attempt, before the classifier knew whether
// any phrase matched (a bare 429 needs none of it). Only a translated
// request's sent body is read now; a Chat Completions body to an
// OpenAI-dialect endpoint costs nothing more. For a 20 MB image
// request failing 429 at 8 endpoints of a route, that is measured here;
// none of it is held against the front's body allowance
// (max_inflight_body_bytes, Call.Allowance), which counts translations.
func TestReview58bEvidenceCostPerErrorAnswer(t *testing.T) {
	const size = 20 << 20
	body := []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + strings.Repeat("A", size) + `"}}]}]}`)
	c := &Call{Body: body}
	const endpoints = 8
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	for i := 0; i < endpoints; i++ {
		sent := append([]byte(nil), body...) // the adapter's translation, its own bytes
		hreq, _ := http.NewRequest("POST", "http://x/v1/chat/completions", bytes.NewReader(sent))
		c.keepSent(hreq, false) // a Chat Completions body to an OpenAI-dialect endpoint
		_ = c.evidence(true)    // the 429's classify
		_ = c.evidence(true)    // attemptMessage's
	}
	runtime.ReadMemStats(&ms1)
	extra := int64(ms1.TotalAlloc-ms0.TotalAlloc) - int64(endpoints*len(body)) // less the translations themselves
	t.Logf("%d attempts of a %d MB request: %d MB allocated for evidence (%.1f× the body per attempt)",
		endpoints, len(body)>>20, extra>>20, float64(extra)/float64(endpoints*len(body)))
	if extra > int64(len(body)) {
		t.Errorf("evidence for %d error answers allocated %d MB beyond the translations, outside the allowance; a 429 reads none of it", endpoints, extra>>20)
	}
}

// review58b: the sent body is part of what health's cooldown words and
// the record's message mask (causeWords, recordWords read
// Call.evidence(true)). It held the model Detour sent, so an upstream's
// "model X is deprecated" lost X in /v1/health's cooldown reason and in
// the decision record, where the client named only its route ("chat");
// the sent body's model member is left out of the evidence now. Before 6f87500 the evidence was the client's body alone.
func TestReview58bModelNameMaskedInCauseWords(t *testing.T) {
	client := []byte(`{"model":"chat","messages":[{"role":"user","content":"hello there"}]}`)
	sent := []byte(`{"model":"claude-3-5-sonnet-20241022","max_tokens":4096,"messages":[{"role":"user","content":"hello there"}]}`)
	c := &Call{Body: client}
	hreq, _ := http.NewRequest("POST", "http://x/v1/messages", bytes.NewReader(sent))
	c.keepSent(hreq, true) // translated for Claude
	// Anthropic's 404 for a retired model: {"type":"not_found_error","message":"model: claude-3-5-sonnet-20241022 "} (classify/testdata/corpus/anthropic-model-not-found-404-trailing-space.json).
	msg := "model: claude-3-5-sonnet-20241022"
	words := causeWords(msg, c.evidence(true), func(s string) string { return s })
	rec := recordWords(msg, c.evidence(true))
	t.Logf("health words %q; record %q", words, rec)
	if !strings.Contains(words, "claude-3-5-sonnet-20241022") || !strings.Contains(rec, "claude-3-5-sonnet-20241022") {
		t.Errorf("the endpoint's own model name is masked as the client's: health %q, record %q", words, rec)
	}
}

// review58b: recordWords gives itself maxRecordRead/len(req) echo checks;
// req now holds the client's body and the sent body, so a request of 16
// MiB or more gets none and its record's message is masked whole (it got
// one check at 16–32 MiB before).
func TestReview58bRecordWordsLargeRequest(t *testing.T) {
	body := []byte(`{"model":"chat","messages":[{"role":"user","content":"` + strings.Repeat("a", 17<<20) + `"}]}`)
	c := &Call{Body: body}
	hreq, _ := http.NewRequest("POST", "http://x/v1/chat/completions", bytes.NewReader(append([]byte(nil), body...)))
	c.keepSent(hreq, false)
	msg := "Rate limit reached for organization org-abcdefghijklmnop on tokens per min"
	before, after := recordWords(msg, body), recordWords(msg, c.evidence(true))
	t.Logf("client body only: %q\nwith the sent body: %q", before, after)
	if before != after {
		t.Errorf("the record's message changed only because the evidence doubled: %q → %q", before, after)
	}
}
