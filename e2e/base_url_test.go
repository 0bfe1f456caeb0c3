package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The most common first mistake with a gateway is the client's base URL:
// the OpenAI SDKs expect the /v1 in it, the Anthropic SDKs add it
// themselves. The 404 says which path was meant and why.
func TestMisconfiguredBaseURLIsNamed(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a]}"), fs)

	oc := openai.NewClient(option.WithBaseURL(g.URL+"/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	_, err := oc.Chat.Completions.New(context.Background(), hello("r"))
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != http.StatusNotFound || !strings.Contains(oerr.Message, "did you mean /v1/chat/completions?") {
		t.Errorf("openai-go without /v1 in its base URL: %v", err)
	}

	ac := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/v1/"), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(0))
	_, err = ac.Messages.New(context.Background(), askClaude("r", "hi"))
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != http.StatusNotFound || !strings.Contains(err.Error(), "did you mean /v1/messages?") {
		t.Errorf("anthropic-sdk-go with /v1 in its base URL: %v", err)
	}

	if r := g.raw(t, http.MethodGet, "/v2/whatever", ""); r.Status != 404 || strings.Contains(string(r.Body), "did you mean") {
		t.Errorf("a path no door resembles: %d %s", r.Status, r.Body)
	}
}
