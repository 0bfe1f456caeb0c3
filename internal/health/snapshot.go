package health

import (
	"context"
	"time"
)

// EndpointHealth is one endpoint in GET /v1/health (docs/behaviour.md#api). The caller adds
// the model, e.g. by embedding: struct{ Model string `json:"model"`;
// health.EndpointHealth }. State is the effective phase (account included).
type EndpointHealth struct {
	Target        string     `json:"target"`
	Provider      string     `json:"provider"`
	State         string     `json:"state"`
	Failures      int        `json:"failures"`
	LastClass     string     `json:"last_class"`
	CooldownUntil *time.Time `json:"cooldown_until"` // null unless cooling
	LatencyMS     *float64   `json:"latency_ms"`     // null until measured
	// CoolingClass is the class that started the cooldown holding the
	// endpoint back (its own or its account's; while probing, the one it
	// recovers from), CoolingMessage the upstream's own words for it
	// (quota, auth and unavailable only). Both "" while healthy.
	CoolingClass   string `json:"cooling_class"`
	CoolingMessage string `json:"cooling_message"`
	// DownSince is since when the endpoint has been out, cooling and
	// probing by turns (the earlier of its own and its account's open
	// records' starts): null while healthy, or when not known.
	DownSince *time.Time `json:"down_since"`
}

// AccountHealth is one provider account in GET /v1/health.
type AccountHealth struct {
	Name          string     `json:"name"`
	State         string     `json:"state"`
	LastClass     string     `json:"last_class"`
	CooldownUntil *time.Time `json:"cooldown_until"` // null unless cooling
	// CoolingClass and CoolingMessage: as EndpointHealth's, the account's own.
	CoolingClass   string `json:"cooling_class"`
	CoolingMessage string `json:"cooling_message"`
	// DownSince: as EndpointHealth's, the account's own.
	DownSince *time.Time `json:"down_since"`
}

// Snapshot lists the configured endpoints (effective state) and their
// provider accounts (own state), in configuration order. Like View it never
// fails: on a store error everything reads healthy.
func (t *Tracker) Snapshot(ctx context.Context) (endpoints []EndpointHealth, accounts []AccountHealth) {
	now := t.now()
	st := t.View(ctx, t.eps)
	down := t.downSince(ctx, st, now)
	endpoints = make([]EndpointHealth, len(t.eps))
	for i, k := range t.eps {
		e := EndpointHealth{
			Target: k.Target, Provider: k.Provider, State: st[i].Phase.String(),
			Failures: st[i].Failures, LastClass: st[i].LastClass,
			CoolingClass: st[i].CoolClass, CoolingMessage: st[i].CoolWords,
		}
		if st[i].Phase == Cooling {
			u := st[i].Until
			e.CooldownUntil = &u
		}
		e.DownSince = down[i]
		if st[i].Measured {
			ms := float64(st[i].Latency) / float64(time.Millisecond)
			e.LatencyMS = &ms
		}
		endpoints[i] = e
	}
	keys := make([]string, len(t.accounts))
	for i, a := range t.accounts {
		keys[i] = acctKey(a)
	}
	recs, err := t.store.Load(ctx, keys)
	if err != nil || len(recs) != len(keys) {
		recs = make([]Record, len(keys))
	}
	accounts = make([]AccountHealth, len(t.accounts))
	for i, a := range t.accounts {
		p := t.peek(ctx, &recs[i], keys[i], t.acctDefs[a], now)
		ah := AccountHealth{Name: a, State: p.String(), LastClass: recs[i].LastClass}
		if p != Healthy {
			ah.CoolingClass, ah.CoolingMessage = causeOf(&recs[i]), recs[i].CoolWords
		}
		if p == Cooling {
			u := recs[i].CoolUntil
			ah.CooldownUntil = &u
		}
		if p != Healthy {
			ah.DownSince = since(recs[i].OpenSince, now)
		}
		accounts[i] = ah
	}
	return endpoints, accounts
}

// downSince is, for each configured endpoint that st (View's) says is not
// healthy, since when it has been out: the earlier start of its own and
// its account's records that are open at now; nil when neither says, and
// for a healthy one. The records of all of them come in one Load, not one
// each (the console reads health every second).
func (t *Tracker) downSince(ctx context.Context, st []Status, now time.Time) []*time.Time {
	out := make([]*time.Time, len(t.eps))
	var keys []string
	var which []int
	for i, k := range t.eps {
		if st[i].Phase != Healthy {
			n := t.names(k)
			keys = append(keys, n.ep, n.acct)
			which = append(which, i)
		}
	}
	if len(keys) == 0 {
		return out
	}
	recs, err := t.store.Load(ctx, keys)
	if err != nil || len(recs) != len(keys) {
		return out
	}
	for j, i := range which {
		n := t.names(t.eps[i])
		var first int64
		for q, def := range [2]string{n.epDef, n.acctDef} {
			r := &recs[2*j+q]
			own(r, def)
			if r.PhaseAt(now) != Healthy && r.OpenSince > 0 && (first == 0 || r.OpenSince < first) {
				first = r.OpenSince
			}
		}
		out[i] = since(first, now)
	}
	return out
}

// since is a record's OpenSince as a time, bounded as every record read
// is (docs/behaviour.md, "One clock, bounded by the reader"): nil when
// zero or negative (not known: a record of another writer); a start the
// shared clock has not reached yet (a replica's clock ahead) reads now
// (hostile 56b: the change to healthy said "out since" an hour after it
// answered).
func since(ns int64, now time.Time) *time.Time {
	if ns <= 0 {
		return nil
	}
	t := time.Unix(0, ns).UTC()
	if t.After(now) {
		t = now.UTC()
	}
	return &t
}
