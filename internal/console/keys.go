package console

import (
	"context"
	"math"
	"net/http"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// keyView is one client key on the Keys page: its name (never the key),
// the routes it may call, and where it stands against each limit it has.
type keyView struct {
	Name          string           `json:"name"`
	Routes        []string         `json:"routes"`
	MaxConcurrent int              `json:"max_concurrent,omitempty"`
	Limits        []limit.Standing `json:"limits"`
	// Refused is the limit that refuses the key now, and until when; nil
	// when none does (as far as this replica has seen).
	Refused *refusedView `json:"refused"`
	// RefusedCount is how many of its requests this replica has refused
	// since it started, by any limit (operator review 55: a flood and a
	// key that used its allowance read the same without it).
	RefusedCount int64 `json:"refused_count"`
	// InProgress is how many of the key's requests this replica is serving
	// now (inProgress: for a key with max_concurrent, the slots its limit
	// counts, an upload still on its way included), against its
	// max_concurrent, which each replica counts for itself (operator review
	// 60: a team refused with client_concurrency_limit_exceeded, the page
	// said nothing of how many it had in progress).
	InProgress int `json:"in_progress"`
	// Disabled is the key's `disabled: true`: its requests are refused
	// with 403 client_key_disabled, whatever its limits say.
	Disabled bool `json:"disabled,omitempty"`
}

type refusedView struct {
	Limit string    `json:"limit"`
	Until time.Time `json:"until"`
}

// keysTimeout bounds the counters' reads of one page refresh: a Redis that
// does not answer leaves the page with this replica's counts.
const keysTimeout = 2 * time.Second

// apiKeys lists the configured client keys with their standing
// (docs/console.md, "Keys"): spend and use in the current windows, read
// from the counters (with Redis, every replica's), counting nothing.
func (c *Console) apiKeys(w http.ResponseWriter, r *http.Request) {
	keys := []keyView{}
	now := c.opt.Now().UTC()
	if c.opt.State == nil {
		writeJSON(w, map[string]any{"now": now, "keys": keys})
		return
	}
	cfg, _ := c.opt.State()
	running := c.inProgressByClient()
	ctx, cancel := context.WithTimeout(r.Context(), keysTimeout)
	defer cancel()
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		v := keyView{Name: k.Name, Routes: k.Routes, MaxConcurrent: k.MaxConcurrent, InProgress: c.inProgress(running, k), Limits: c.opt.Limits.Standings(ctx, k),
			Disabled: k.Disabled}
		if v.Routes == nil {
			v.Routes = []string{}
		}
		if v.Limits == nil {
			v.Limits = []limit.Standing{}
		}
		// A limit whose counter is at its cap refuses the key's next
		// request, whichever replica served the one that reached it
		// (operator review 52b: the page waited for this replica to
		// refuse one); else the refusal this replica remembers.
		for _, l := range v.Limits {
			if l.Full() {
				v.Refused = &refusedView{Limit: l.Limit, Until: l.Resets}
				break
			}
		}
		v.RefusedCount = c.opt.Limits.Refusals(k.Name)
		if ref := c.opt.Limits.Refused(k); v.Refused == nil && ref != nil {
			v.Refused = &refusedView{Limit: ref.Limit, Until: now.Add(ref.RetryAfter).Truncate(time.Second)}
		}
		keys = append(keys, v)
	}
	writeJSON(w, map[string]any{"now": now, "keys": keys})
}

// inProgress is how many of k's requests this replica serves now: for a
// key with max_concurrent, the slots it counts, where the server says
// (Options.Slots: a request still sending its body holds one already;
// before, the page left it out); else running's count, from "In progress".
func (c *Console) inProgress(running map[string]int, k *config.ClientKey) int {
	if c.opt.Slots != nil && k.MaxConcurrent > 0 {
		return c.opt.Slots(k.Name)
	}
	return running[k.Name]
}

// inProgressByClient counts the requests this replica is serving now by
// client key name, from the set the Decisions page lists as "In progress":
// a request is in it from when it is dispatched (its body read, its limits
// passed) until it ends (a stream when it ended). A request still sending
// its body is not in it yet. A count_tokens request is left out.
func (c *Console) inProgressByClient() map[string]int {
	views, _ := c.progress.List(math.MaxInt)
	n := make(map[string]int)
	for _, v := range views {
		if v.Client != "" && v.API != "count_tokens" {
			n[v.Client]++
		}
	}
	return n
}
