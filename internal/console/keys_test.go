package console

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/inprogress"
)

// A key's in_progress is its requests this replica serves now, as "In
// progress" lists them, count_tokens aside (its slots are a pool of their
// own): what its max_concurrent is held against (operator review 60).
func TestKeysAPICountsEachKeysRequestsInProgress(t *testing.T) {
	cfg, err := config.Parse("c.yaml", []byte(testConfig+`client_keys:
  - {name: team-a, key: key-team-a-000060, max_concurrent: 2, budget: {usd_per_day: 5}}
  - {name: team-b, key: key-team-b-000060}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := health.New(health.NewMemory(), health.Settings{}, nil, func() time.Time { return now })
	c := New(Options{State: func() (*config.Config, *health.Tracker) { return cfg, tr }, Now: func() time.Time { return now }})
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	reqs := []*inprogress.Request{
		{ID: "1", API: "chat", Client: "team-a", Started: now},
		{ID: "2", API: "messages", Client: "team-a", Started: now},
		{ID: "3", API: "count_tokens", Client: "team-a", Started: now},
		{ID: "4", API: "chat", Client: "team-b", Started: now},
		{ID: "5", API: "chat", Started: now},
	}
	for _, r := range reqs {
		c.InProgress().Add(r)
	}
	var got struct {
		Keys []struct {
			Name          string `json:"name"`
			MaxConcurrent int    `json:"max_concurrent"`
			InProgress    *int   `json:"in_progress"`
		} `json:"keys"`
	}
	check := func(want map[string]int) {
		t.Helper()
		_, body := fetch(t, srv, "/ui/api/keys")
		decode(t, body, &got)
		if len(got.Keys) != len(want) {
			t.Fatalf("%d keys: %s", len(got.Keys), body)
		}
		for _, k := range got.Keys {
			if k.InProgress == nil || *k.InProgress != want[k.Name] {
				t.Errorf("%s: in_progress %v, want %d (%s)", k.Name, k.InProgress, want[k.Name], body)
			}
		}
	}
	check(map[string]int{"team-a": 2, "team-b": 1})
	c.InProgress().Remove(reqs[0])
	c.InProgress().Remove(reqs[3])
	check(map[string]int{"team-a": 1, "team-b": 0})
}
