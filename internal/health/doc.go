// Package health keeps the health of endpoints (target × provider) and of
// provider accounts: healthy, cooling until T, or probing (the cooldown has
// passed and one probe request decides). It reports transitions only on a
// real phase change (edge triggered), smooths time-to-first-byte per
// endpoint for the `fastest` strategy, and lists everything for
// GET /v1/health.
//
// Health never denies service (docs/behaviour.md#health): View only reports phases; the route
// orders cooling endpoints last, and dispatch asks TryProbe for the single
// probe slot of an endpoint whose cooldown has passed.
//
// Health does not know what a class means. Dispatch, through the policy
// table, turns each outcome into a Report: count it toward the failure
// threshold, cool the endpoint or the whole account at once and for how
// long, or succeed with a latency. Class names are carried only as labels
// (last_class, transitions, and the cooldown's own: CoolClass, with the
// upstream's words a Report may give for it, Report.Words).
//
// # Rules
//
//   - FailureThreshold counted failures in a row cool the endpoint for
//     Cooldown; a success resets the count.
//   - A Report with CoolFor cools its scope at once. The account record is
//     keyed by provider, so it covers every endpoint using that provider; an
//     endpoint's effective phase is the worse of its own and its account's.
//   - A cooldown that is the upstream's own hint (Report.Hinted: a
//     Retry-After) is capped at MaxCooldown; configured cooldowns are not.
//   - A new cooldown never shortens a longer one already running.
//   - After a cooldown a record is Probing until a success closes it. A
//     failure while probing cools again for twice the last cooldown, up to
//     max(MaxCooldown, the base asked for), so a 24h cooldown for a retired
//     model is never cut to MaxCooldown; a hinted one cools for the new
//     hint, not twice the last. A success whose attempt began after an
//     endpoint's running cooldown did (Report.Took) closes it too; an
//     account closes only from probing. Failures that neither count nor
//     cool (request-describing classes) leave the record as it is: no client
//     can cool or close an endpoint by sending bad requests.
//   - TryProbe takes a lease (ProbeUntil) through one atomic Store.Update, so
//     exactly one request wins per lease, across replicas on a shared store.
//   - Replicas over Redis read Redis's clock (clock.go). Every record read
//     is bounded by the longest cooldown the served configuration can
//     start and, on that shared clock only, by now; it is written back
//     bounded when it was not (sanity.go).
//   - A record carries what it is about (Define, a digest); one about
//     another definition of the same name (a rolling deploy's old model or
//     key) reads as empty (define.go).
//   - A cooldown keeps the class that started it, or last made it end
//     later (Record.CoolClass): a failure that does neither leaves it, so a
//     timeout at an endpoint cooling a day for a retired model does not
//     rename the day. Its words (Report.Words) are asked for once, when
//     the cause starts, outside the store's lock (explain).
//   - Each record keeps the last phase announced; every Update compares it
//     with the phase before and after, so a change is reported once, by the
//     call that made or first observed it, even across replicas.
//
// # Store design
//
// A Store has two methods: Load (many keys) and Update (atomic
// read-modify-write of one key with a Go function). The state machine lives
// in Tracker, not in the stores: the rules are written once, tested once
// against every store by one shared suite, and a store only has to be atomic.
// Memory is a map under a lock; RedisStore runs the same function on the
// value it last read or wrote of the key and sends the result in one
// compare-and-set script (casScript: written only while Redis still holds
// that value, else Redis's value comes back and the function runs again on
// it), so an update is one round trip; a success's report reads the
// endpoint's account in the same script (UpdateAlong). It stores JSON
// under a prefix with an expiry on every key, mirrors every successful
// operation into a local Memory, and falls back to that mirror when Redis is
// unreachable (logged once, retried at most once a second, "resumed sharing"
// logged once when it is back). No store error reaches a request: Tracker
// treats one as "healthy".
//
// While Redis is down each replica decides alone (its own probe slot, its
// own cooldowns), and journals the keys whose cooldown began or grew. When
// Redis answers again, the replica that finds it due for a retry first
// writes the journal back (one update per key, under the never-shorten
// rule: a cooldown in Redis that ends later wins), then resumes sharing.
// A read that finds a key absent from Redis while the mirror holds a
// cooldown still running there writes it back under the same rule: Redis
// lost it (restarted empty, evicted it), since a key outlives its cooldown
// by a day. A script that meets TRYAGAIN (a success's report, whose two
// keys a slot being moved has split between masters) counts as an outage.
//
// # Store keys
//
// An endpoint's record is "{provider}:ep:target", its account's
// "{provider}:acct": the provider (with "{", "}" and "%" escaped) is a
// Redis Cluster hash tag, so an endpoint and its account share a slot, and
// every command the stores send touches the keys of one slot. On a cluster, Load
// pipelines GETs instead of one MGET, since a View spans providers.
// NewRedisClient builds the go-redis universal client for one server, a
// cluster or a Sentinel-managed primary.
//
// Once (Memory and RedisStore) de-duplicates operator alerts across
// replicas; Release gives back a claim (an alert that was not delivered),
// in Redis only while the claim is still the caller's own. A claim made
// locally while Redis is unreachable holds after it, and is written to
// Redis when it answers again (redis_claim.go).
//
// This package imports nothing of ours; the only outside import is go-redis.
package health
