package limit

import (
	"cmp"
	"context"
	"crypto/rand"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redisfail"
)

// Redis is a Counter shared by every replica through Redis: one Lua script
// per operation, so a check and its count are atomic, over keys that share
// one hash tag per client (one Cluster slot). While Redis is unreachable it
// counts in a local Memory, and the spend added meanwhile is added to Redis
// when it answers again, all in one round trip (flush).
type Redis struct {
	client    redis.UniversalClient
	prefix    string
	log       *slog.Logger
	local     *Memory
	now       func() time.Time
	opTimeout time.Duration

	down     atomic.Bool
	mu       sync.Mutex // guards retryAt, pending, flushing, stale, staleAt and the transitions of down
	retryAt  time.Time
	pending  map[string]pendingAdd // spend added locally while Redis was away
	flushing bool                  // a flush is in flight
	stale    []string              // markers of landed shares whose delete failed, for a later request
	staleAt  time.Time             // not before then: a delete that keeps failing is not sent on every request
}

// maxStale bounds the markers kept for another delete; past it a marker is
// left to expire with its window.
const maxStale = 4096

// pendingAdd is a counter's spend not yet known to be in Redis: n, not
// sent yet, and the shares that flushes sent without learning whether
// they landed (their replies came late, or not at all), to send again.
type pendingAdd struct {
	n      int64
	ttl    time.Duration
	at     time.Time
	shares []share
}

// share is spend sent by a flush under a random id, total all that was
// sent under it so far: Redis adds of an id's total only the part it has
// not added yet (flushScript), so sending it again adds nothing twice.
type share struct {
	id    string
	total int64
}

var _ Counter = (*Redis)(nil)

const (
	retryEvery       = time.Second
	defaultOpTimeout = 500 * time.Millisecond
)

// NewRedis returns a Counter over client with keys under prefix (e.g.
// "detour:"); logger nil means slog.Default(), now nil time.Now.
func NewRedis(client redis.UniversalClient, prefix string, logger *slog.Logger, now func() time.Time) *Redis {
	if logger == nil {
		logger = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &Redis{client: client, prefix: prefix, log: logger, local: NewMemory(now), now: now,
		opTimeout: defaultOpTimeout, pending: map[string]pendingAdd{}}
}

// SetTimeout bounds each Redis operation (and the flush after an outage,
// one round trip) to d, the configuration's state.timeout; d <= 0 keeps the
// default, 500ms. Call it before the counter serves requests.
func (r *Redis) SetTimeout(d time.Duration) {
	if d > 0 {
		r.opTimeout = d
	}
}

// counterLua reads a counter: count(k) is its value, 0 when absent or
// foreign — anything Detour did not write, a word, a float, another type
// (a GET on which fails) — and a foreign one is deleted first, so what the
// script writes next starts from 0 (docs/scale.md, "Redis"). A script that
// failed on one once put every client on local counting for good.
const counterLua = `
local function count(k)
  local v = redis.pcall("GET", k)
  if type(v) == "string" and string.match(v, "^%-?%d+$") then return tonumber(v) end
  if v then redis.call("DEL", k) end
  return 0
end
`

// admitScript: KEYS are the counters, ARGV[1..n] their caps, ARGV[n+1] the
// TTL of KEYS[1] in ms. It returns the 0-based index of the first counter
// at or over its cap, or -1 after counting one request in KEYS[1].
var admitScript = redis.NewScript(counterLua + `
local n = #KEYS
for i = 1, n do
  local cap = tonumber(ARGV[i])
  if cap > 0 and count(KEYS[i]) >= cap then return i - 1 end
end
if tonumber(ARGV[1]) > 0 then
  count(KEYS[1])
  redis.call("INCR", KEYS[1])
  redis.call("PEXPIRE", KEYS[1], ARGV[n + 1])
end
return -1`)

// addScript: ARGV holds, per key, a delta (at most Ceiling) and a TTL in
// ms. A counter saturates at Ceiling (exact as a Lua number); the delta goes
// to INCRBY as the decimal Detour sent, since Redis writes a Lua number
// of 1e17 or more as "1e+17", which INCRBY refuses.
var addScript = redis.NewScript(counterLua + `
local ceiling = ` + strconv.FormatInt(Ceiling, 10) + `
for i = 1, #KEYS do
  local d = tonumber(ARGV[2 * i - 1])
  if d ~= 0 then
    if count(KEYS[i]) + d >= ceiling then
      redis.call("SET", KEYS[i], "` + strconv.FormatInt(Ceiling, 10) + `")
    else
      redis.call("INCRBY", KEYS[i], ARGV[2 * i - 1])
    end
    redis.call("PEXPIRE", KEYS[i], ARGV[2 * i])
  end
end
return 0`)

// flushScript adds a counter's pending shares: KEYS[1] is the counter,
// KEYS[2..] the shares' markers (the counter's name, ":flush:" and the
// share's id: the same hash tag, the same Cluster slot), ARGV[1] the
// counter's TTL in ms, ARGV[i] the total sent under KEYS[i] (at most
// Ceiling). A marker holds what its share has added so far; only the
// rest of the total is added (saturating at Ceiling, as in addScript),
// and the marker then lives as long as the counter's window.
var flushScript = redis.NewScript(counterLua + `
local ceiling = ` + strconv.FormatInt(Ceiling, 10) + `
for i = 2, #KEYS do
  local d = tonumber(ARGV[i]) - count(KEYS[i])
  if d > 0 then
    if count(KEYS[1]) + d >= ceiling then
      redis.call("SET", KEYS[1], "` + strconv.FormatInt(Ceiling, 10) + `")
    else
      redis.call("INCRBY", KEYS[1], string.format("%.0f", d))
    end
    redis.call("PEXPIRE", KEYS[1], ARGV[1])
    redis.call("SET", KEYS[i], ARGV[i], "PX", ARGV[1])
  end
end
return 0`)

// try says whether to talk to Redis now: always while it answers, once per
// retryEvery while it is away.
func (r *Redis) try() bool {
	if !r.down.Load() {
		return true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if now.Before(r.retryAt) {
		return false
	}
	r.retryAt = now.Add(retryEvery)
	return true
}

// done records an operation's outcome; it reports whether it reached Redis
// and succeeded. Only an unreachable Redis (redisfail.Outage) puts the
// limiter on local counting; an error reply about one command serves that
// request locally and is logged, and Redis stays shared for the others.
func (r *Redis) done(err error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil && !redisfail.Outage(err) {
		r.log.Warn("limits: redis refused a command; counted locally this once", "prefix", r.prefix, "err", err)
		return false
	}
	if err == nil {
		if r.down.Load() {
			r.down.Store(false)
			r.log.Info("limits: redis is back, sharing client limits again", "prefix", r.prefix)
		}
		return true
	}
	// A Redis Cluster may have promoted a replica in place of a master
	// that stopped answering: the retry a second from now goes to it
	// (a client key's counters may sit on a master health never touches).
	redisfail.Rediscover(r.client)
	r.retryAt = r.now().Add(retryEvery)
	if !r.down.Load() {
		r.down.Store(true)
		r.log.Warn("limits: redis unreachable, counting client limits locally until it is back", "prefix", r.prefix, "err", err)
	}
	return false
}

func (r *Redis) full(keys []Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = r.prefix + k.Name
	}
	return out
}

func ms(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// Admit implements Counter.
func (r *Redis) Admit(ctx context.Context, keys []Key, caps []int64) int {
	if !r.try() || !r.flush(ctx) {
		return r.local.Admit(ctx, keys, caps)
	}
	args := make([]any, 0, len(caps)+1)
	for _, c := range caps {
		args = append(args, c)
	}
	args = append(args, ms(keys[0].TTL))
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opTimeout)
	i, err := admitScript.Run(c, r.client, r.full(keys), args...).Int()
	cancel()
	if !r.done(err) {
		return r.local.Admit(ctx, keys, caps)
	}
	return i
}

// Add implements Counter.
func (r *Redis) Add(ctx context.Context, keys []Key, deltas []int64) {
	if r.try() && r.flush(ctx) && r.done(r.add(ctx, keys, deltas)) {
		return
	}
	r.local.Add(ctx, keys, deltas)
	r.mu.Lock()
	now := r.now()
	for i, k := range keys {
		if deltas[i] != 0 {
			p := r.pending[k.Name]
			p.n = min(p.n+deltas[i], Ceiling)
			p.ttl, p.at = k.TTL, now
			r.pending[k.Name] = p
		}
	}
	r.mu.Unlock()
}

// Read implements Counter: one MGET (a client's counters share a hash tag,
// so a Cluster's one node answers it); a value Detour did not write reads
// as 0, as counterLua reads it. While Redis is away, or once ctx is done,
// the local counts.
func (r *Redis) Read(ctx context.Context, keys []Key) []int64 {
	if !r.try() {
		return r.local.Read(ctx, keys)
	}
	if ctx.Err() != nil {
		return r.local.Read(ctx, keys) // the caller's time is up: the rest of its keys read here
	}
	// Bounded by the caller's deadline too (a page or a scrape reads every
	// key under one: review 52b), whose passing is no outage of Redis.
	c, cancel := context.WithTimeout(ctx, r.opTimeout)
	vals, err := r.client.MGet(c, r.full(keys)...).Result()
	cancel()
	if err != nil && callerOut(ctx) {
		return r.local.Read(ctx, keys)
	}
	if !r.done(err) {
		return r.local.Read(ctx, keys)
	}
	out := make([]int64, len(keys))
	for i, v := range vals {
		if s, ok := v.(string); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
				out[i] = min(n, Ceiling)
			}
		}
	}
	return out
}

// callerOut reports whether ctx's time is up, or all but: go-redis sets
// the connection's read deadline from it, and its "i/o timeout" may come a
// moment before ctx says it is done (hostile 52c: a Keys page refresh put
// every replica's limits on local counting).
func callerOut(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return ctx.Err() != nil || ok && time.Until(dl) < 50*time.Millisecond
}

func (r *Redis) add(ctx context.Context, keys []Key, deltas []int64) error {
	args := make([]any, 0, 2*len(keys))
	for i, k := range keys {
		args = append(args, deltas[i], ms(k.TTL))
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opTimeout)
	defer cancel()
	return addScript.Run(c, r.client, r.full(keys), args...).Err()
}

// flush adds the spend counted locally while Redis was away, once it
// answers: every counter in one pipelined round trip, bounded by one
// operation's timeout, each counter's add atomic (flushScript). A counter
// whose window has ended is dropped; one whose add failed is kept, with
// what was spent on it meanwhile, for the next try, and Redis counts as
// away again: flush reports false, and the request that called it is
// served locally like the others until the next retry (were it checked in
// Redis, its success would count Redis back, and every request after would
// try the flush again, each waiting on a master that does not answer).
//
// An add that failed may still have run on Redis (its reply came after
// the timeout; a Cluster client may send a pipeline again after the node
// ran it), so each is idempotent: a counter's spend is sent as a share
// under a random id, kept with that id for the retry, and what is spent
// on the counter later grows that share's total; Redis adds only the part
// of a total it has not added under that id (flushScript). Two flushes in
// flight at once may each hold a share of one counter: both are kept.
//
// Each add is sent as EVAL with the script's text: in a pipeline the errors
// come back only at its end, too late for EVALSHA's fall back to EVAL, and
// a Redis that was restarted (the usual end of an outage) has forgotten
// every script. A Cluster client splits the pipeline by node, so the
// counters of clients on different masters go to each at once.
func (r *Redis) flush(ctx context.Context) bool {
	r.mu.Lock()
	if len(r.pending) == 0 {
		var stale []string
		if len(r.stale) > 0 && !r.now().Before(r.staleAt) {
			stale, r.stale = r.stale, nil
		}
		r.mu.Unlock()
		if len(stale) > 0 {
			go r.forget(stale)
		}
		return true
	}
	if r.flushing {
		// One flush at a time: a counter's spend is never split among
		// flushes in flight, and this request, served locally, does not
		// read counters that lack it.
		r.mu.Unlock()
		return false
	}
	r.flushing = true
	defer func() {
		r.mu.Lock()
		r.flushing = false
		r.mu.Unlock()
	}()
	pend := r.pending
	r.pending = map[string]pendingAdd{}
	r.mu.Unlock()
	now := r.now()
	names := make([]string, 0, len(pend))
	cmds := make([]*redis.Cmd, 0, len(pend))
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opTimeout)
	defer cancel()
	_, _ = r.client.Pipelined(c, func(p redis.Pipeliner) error {
		for name, a := range pend {
			ttl := a.ttl - now.Sub(a.at)
			if ttl <= 0 {
				continue // the window is over: nothing to add to
			}
			if a.n > 0 {
				if len(a.shares) == 0 {
					a.shares = []share{{id: rand.Text()}}
				}
				a.shares[0].total = min(a.shares[0].total+a.n, Ceiling)
				a.n = 0
				pend[name] = a
			}
			keys := []string{r.prefix + name}
			args := []any{ms(ttl)}
			for _, sh := range a.shares {
				keys = append(keys, r.prefix+name+":flush:"+sh.id)
				args = append(args, sh.total)
			}
			names = append(names, name)
			cmds = append(cmds, flushScript.Eval(c, p, keys, args...))
		}
		return nil
	})
	var failed error
	var landed []string // the markers of shares known to have landed
	for i, cmd := range cmds {
		err := cmd.Err()
		if err == nil {
			for _, sh := range pend[names[i]].shares {
				landed = append(landed, r.prefix+names[i]+":flush:"+sh.id)
			}
			continue
		}
		if !redisfail.Outage(err) {
			// Redis answered and refused this add: sent again, it would
			// be refused again, and keep every later flush waiting.
			r.log.Warn("limits: redis refused a counter's pending spend; dropped", "prefix", r.prefix, "counter", names[i], "err", err)
			continue
		}
		failed = cmp.Or(failed, err)
		r.mu.Lock() // maybe not added: keep its shares for the next time
		a, q := pend[names[i]], r.pending[names[i]]
		q.shares = append(a.shares, q.shares...)
		q.ttl, q.at = a.ttl, a.at
		r.pending[names[i]] = q
		r.mu.Unlock()
	}
	r.mu.Lock()
	landed = append(landed, r.stale...)
	r.stale = nil
	r.mu.Unlock()
	if len(landed) > 0 {
		go r.forget(landed)
	}
	return failed == nil || r.done(failed)
}

// forget deletes the markers of shares whose adds are known to have landed:
// their ids are never sent again, so nothing is left for a marker to
// guard. One pipelined DEL per marker (a Cluster splits them by node),
// bounded by one operation's timeout, off the request's path. A delete
// that failed (Redis went away again just after the flush) is tried again
// by a request that reaches Redis a retry interval later or by the next
// flush, up to maxStale markers; one that stays past that expires with its
// window.
func (r *Redis) forget(markers []string) {
	c, cancel := context.WithTimeout(context.Background(), r.opTimeout)
	defer cancel()
	dels := make([]*redis.IntCmd, len(markers))
	_, _ = r.client.Pipelined(c, func(p redis.Pipeliner) error {
		for i, m := range markers {
			dels[i] = p.Del(c, m)
		}
		return nil
	})
	var failed []string
	for i, d := range dels {
		if d != nil && d.Err() != nil {
			failed = append(failed, markers[i])
		}
	}
	if len(failed) == 0 {
		return
	}
	r.mu.Lock()
	r.stale = append(r.stale, failed[:min(len(failed), maxStale-len(r.stale))]...)
	r.staleAt = r.now().Add(retryEvery)
	r.mu.Unlock()
}
