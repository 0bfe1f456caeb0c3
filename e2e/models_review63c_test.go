package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63c: Anthropic's model list pages as Anthropic documents it
// (limit 1–1000, 20 by default; after_id, before_id), so a pager that
// follows the cursor by hand reads each name once. Before round 63 every
// request answered the whole list: after_id=<last> read it all again, and
// limit=0 or 5000 was a 200.
func TestReview63cAnthropicModelsPage(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	c := anthropicSDK(g, nil)
	ctx := context.Background()
	all, err := c.Models.List(ctx, anthropic.ModelListParams{Limit: anthropic.Int(1000)})
	if err != nil || len(all.Data) < 3 || all.HasMore {
		t.Fatalf("whole list: %v, %d names, has_more %v (want at least 3 names for this test)", err, len(all.Data), all.HasMore)
	}
	// By hand, after_id from each page's last_id.
	var ids []string
	params := anthropic.ModelListParams{Limit: anthropic.Int(2)}
	for pages := 0; ; pages++ {
		p, err := c.Models.List(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Data) > 2 || pages > len(all.Data) {
			t.Fatalf("page of %d names (limit 2), page %d", len(p.Data), pages)
		}
		for _, m := range p.Data {
			ids = append(ids, m.ID)
		}
		if !p.HasMore {
			break
		}
		params.AfterID = anthropic.String(p.LastID)
	}
	if len(ids) != len(all.Data) {
		t.Fatalf("paged by hand: %v, want each of %d names once", ids, len(all.Data))
	}
	for i, m := range all.Data {
		if ids[i] != m.ID {
			t.Fatalf("paged by hand: %v, want the list's order", ids)
		}
	}
	// Backwards from the last name: the two before it.
	last := all.Data[len(all.Data)-1].ID
	p, err := c.Models.List(ctx, anthropic.ModelListParams{Limit: anthropic.Int(2), BeforeID: anthropic.String(last)})
	if err != nil || len(p.Data) != 2 || p.Data[1].ID != all.Data[len(all.Data)-2].ID || p.HasMore != (len(all.Data) > 3) {
		t.Errorf("before_id %s: %v %+v", last, err, p)
	}
	// Out of range, or a cursor this key does not list: Anthropic's 400.
	for _, q := range []string{"limit=0", "limit=5000", "limit=x", "after_id=no-such-model"} {
		r := g.raw(t, http.MethodGet, "/v1/models?"+q, "", "x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
		if r.Status != 400 || !strings.Contains(string(r.Body), `"invalid_request_error"`) {
			t.Errorf("%s: %d %s, want 400 invalid_request_error", q, r.Status, r.Body)
		}
	}
	_, err = c.Models.List(ctx, anthropic.ModelListParams{Limit: anthropic.Int(0)})
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Errorf("limit 0 through the SDK: %v, want its 400", err)
	}
}
