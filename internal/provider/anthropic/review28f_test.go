package anthropic

import (
	"context"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// TestReview28fEmptyClientVersionKeepsTheDefault: 7e4b732 reads LMDeploy's
// 400 "Missing required header: anthropic-version"
// (InternLM/lmdeploy@1263d5c, lmdeploy/serve/anthropic/endpoints/messages.py:35,
// `if not raw_request.headers.get('anthropic-version')`) as unknown because
// the adapter writes that header. But NativeRequest overwrites its own
// Version with the client's values whenever the client sent the header,
// even empty: an empty anthropic-version from the client reaches LMDeploy
// as "", which it reports missing. The words are then the client's fault,
// read as unknown at every endpoint. The default should stand when the
// client's value is empty.
func TestReview28fEmptyClientVersionKeepsTheDefault(t *testing.T) {
	h := http.Header{}
	h["Anthropic-Version"] = []string{""}
	fwd := ForwardedHeader(h)
	hr, err := Adapter{}.NativeRequest(context.Background(), testEP, &provider.NativeRequest{
		API: provider.APIMessages, Body: []byte(`{"model":"x","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`), Header: fwd,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := hr.Header.Get("anthropic-version"); got != Version {
		t.Errorf("anthropic-version = %q, want the adapter's %q when the client's is empty", got, Version)
	}
}
