package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/limit"
	"github.com/detour-llm/detour/internal/testutil"
)

// An upstream may report negative usage; its attempt costs nothing against
// a key's limits, and never takes back what another attempt of the same
// request spent (a continued stream, a retried one).
func TestSpendIgnoresNegativeUsage(t *testing.T) {
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	l := limit.New(limit.NewMemory(clk.Now), clk.Now)
	st := &State{Limits: l}
	k := &config.ClientKey{Name: "team-a", Rate: config.Rate{TokensPerMinute: 1000}, Budget: config.Budget{USDPerDay: 0.5}}
	honest, hostile := decision.USD(1), decision.USD(-1)
	rec := &decision.Decision{
		Attempts: []decision.Attempt{
			{Billable: true, Usage: &decision.Usage{PromptTokens: 900, CompletionTokens: 200, TotalTokens: 1100}, CostUSD: &honest},
			{Billable: true, Usage: &decision.Usage{PromptTokens: -5000, CompletionTokens: 0, TotalTokens: -5000}, CostUSD: &hostile},
		},
		Usage: &decision.Usage{PromptTokens: -4100, CompletionTokens: 200, TotalTokens: -3900},
	}
	spend(httptest.NewRequest("POST", "/v1/chat/completions", nil), st, k, rec)
	if r := l.Admit(t.Context(), k); r == nil || r.Limit != "tokens_per_minute" {
		t.Fatalf("after 1100 tokens and $1 of a 1000-token, $0.50 key: %+v", r)
	}
	clk.Set(time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC))
	if r := l.Admit(t.Context(), k); r == nil || r.Limit != "usd_per_day" {
		t.Fatalf("next minute: %+v, want refused by usd_per_day", r)
	}
}

// A request refused by the key's rate gives back the max_concurrent slot it
// took: a rate-limited key is not locked out once its minute turns.
func TestRateRefusalGivesBackTheSlot(t *testing.T) {
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	s := New(&State{Config: &config.Config{}, Limits: limit.New(limit.NewMemory(clk.Now), clk.Now)}, nil, nil, nil)
	k := &config.ClientKey{Name: "ci", MaxConcurrent: 1, Rate: config.Rate{RequestsPerMinute: 1}}
	ask := func() (int, string) {
		a := &admitted{st: s.state.Load(), client: k}
		w := httptest.NewRecorder()
		if !s.refused(w, httptest.NewRequest("POST", "/v1/chat/completions", nil), openAIDoor("chat", dispatch.OpChat, nil), a) {
			s.end(a)
			return 200, ""
		}
		return w.Code, w.Body.String()
	}
	if code, body := ask(); code != 200 {
		t.Fatalf("first request: %d %s", code, body)
	}
	if code, body := ask(); code != 429 || !strings.Contains(body, "requests_per_minute") {
		t.Fatalf("second request in the minute: %d %s", code, body)
	}
	clk.Set(time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC))
	if code, body := ask(); code != 200 {
		t.Fatalf("next minute: %d %s (the refused request kept its slot)", code, body)
	}
}
