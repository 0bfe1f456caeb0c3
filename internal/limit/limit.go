package limit

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/internal/config"
)

// Key is one counter and how long it must outlive its window's start.
type Key struct {
	Name string
	TTL  time.Duration
}

// Counter holds windowed counters. Implementations are safe for concurrent
// use and never fail: a shared one falls back to local counts.
type Counter interface {
	// Admit, in one atomic step, finds the first i with caps[i] > 0 and
	// count(keys[i]) >= caps[i], and returns it; when there is none it adds
	// one to keys[0] (when caps[0] > 0) and returns -1.
	Admit(ctx context.Context, keys []Key, caps []int64) int
	// Add adds deltas[i] to keys[i] (zero deltas are skipped).
	Add(ctx context.Context, keys []Key, deltas []int64)
	// Read returns count(keys[i]) for each key, counting nothing; 0 for a
	// counter that is absent or whose window ended.
	Read(ctx context.Context, keys []Key) []int64
}

// The limits, in the order of the counters.
const (
	RequestsPerMinute = iota
	TokensPerMinute
	USDPerDay
	USDPerMonth
	nLimits
)

// Names are the limits' names, as in the configuration and in metrics.
var Names = [nLimits]string{"requests_per_minute", "tokens_per_minute", "usd_per_day", "usd_per_month"}

// microUSD is the unit spend is counted in.
const microUSD = 1e6

// Ceiling is where every counter, cap and delta saturates: 2^53 (9e15
// tokens, or $9 billion in micro-dollars), exact as a float64 (and so in
// Redis's Lua) and far from overflowing an int64 when two are added. An
// upstream may report any usage, and a price times it may pass what an
// int64 holds: without a ceiling such a spend wrapped to a negative count
// and admitted the client for the rest of its window.
const Ceiling = 1 << 53

// saturate is x bounded to [0, Ceiling]; NaN is 0.
func saturate(x float64) int64 {
	switch {
	case !(x > 0): // NaN too
		return 0
	case x >= Ceiling:
		return Ceiling
	}
	return int64(x)
}

// Refusal is a request refused by a limit.
type Refusal struct {
	// Limit is one of Names.
	Limit string
	// RetryAfter is the time until the limit's window turns.
	RetryAfter time.Duration
	// Message names the client and the limit, for the client.
	Message string
}

// Limiter applies client keys' limits over a Counter. The zero value is not
// usable; use New.
type Limiter struct {
	c   Counter
	now func() time.Time
	// carry is, per key name, the part of a micro-dollar spent but not yet
	// counted: spend is counted in whole micro-dollars, and a request that
	// cost less (a short embedding) must still move its budget (review
	// 33b). At most a micro-dollar per key is lost on a restart.
	mu    sync.Mutex
	carry map[string]float64
	// uncounted is, per key name, what its requests spent in the current
	// day ([0]) and month ([1]) while the key had no budget for that
	// window, which no counter holds: a reload that gives the key the
	// budget counts it (TakeUncounted), each request once.
	uncounted map[string]*[2]tally
	swept     time.Time // the day uncounted was last swept of turned windows
	// refused is, per key name, its last refusal by Admit (a held), until
	// that limit's window turns: Refused answers from it without a counter.
	refused sync.Map
	// refusals is, per key name, how many of its requests this process
	// refused (CountRefusal), for the console's Keys page.
	refusals sync.Map // name → *atomic.Int64
}

// CountRefusal counts one request of the key name that a limit of its
// refused, whichever (max_concurrent too): the Keys page shows how hard
// a key floods, which its standing alone cannot (a key that used its
// allowance reads the same; operator review 55). A nil Limiter counts
// nothing.
func (l *Limiter) CountRefusal(name string) {
	if l == nil {
		return
	}
	v, ok := l.refusals.Load(name)
	if !ok {
		v, _ = l.refusals.LoadOrStore(name, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

// Refusals is how many requests of the key name this process has refused
// since it started (CountRefusal).
func (l *Limiter) Refusals(name string) int64 {
	if l == nil {
		return 0
	}
	if v, ok := l.refusals.Load(name); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// held is a key's refusal remembered until its window turns.
type held struct {
	limit int       // index into Names
	cap   int64     // the cap the key was over
	until time.Time // the window's end (UTC)
}

// New returns a Limiter over c; now nil means time.Now.
func New(c Counter, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{c: c, now: now}
}

// Now is the limiter's clock.
func (l *Limiter) Now() time.Time { return l.now() }

// caps are k's limits as counter caps, at most Ceiling (a counter stops
// there).
func caps(k *config.ClientKey) []int64 {
	return []int64{min(int64(k.Rate.RequestsPerMinute), Ceiling), min(int64(k.Rate.TokensPerMinute), Ceiling),
		toMicro(k.Budget.USDPerDay), toMicro(k.Budget.USDPerMonth)}
}

func toMicro(usd float64) int64 {
	return saturate(math.Ceil(usd * microUSD))
}

// windows returns the counter keys of client at now and when each window ends.
func windows(client string, now time.Time) ([]Key, [nLimits]time.Time) {
	now = now.UTC()
	minute := now.Truncate(time.Minute)
	st := Starts(now)
	day, month := st[0], st[1]
	ends := [nLimits]time.Time{minute.Add(time.Minute), minute.Add(time.Minute), day.AddDate(0, 0, 1), month.AddDate(0, 1, 0)}
	tag := Tag(client) + ":"
	keys := []Key{
		{tag + "req:" + minute.Format("200601021504"), 0},
		{tag + "tok:" + minute.Format("200601021504"), 0},
		{tag + "usd:d:" + day.Format("20060102"), 0},
		{tag + "usd:m:" + month.Format("200601"), 0},
	}
	for i := range keys {
		// A window's counter outlives its end a little, so a clock that
		// differs between replicas by seconds still reads one counter.
		keys[i].TTL = ends[i].Sub(now) + time.Minute
	}
	return keys, ends
}

// tagEscaper keeps a client name from closing its Redis Cluster hash tag.
var tagEscaper = strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D")

// Tag is the Redis Cluster hash tag of client's counters, "{client:NAME}"
// with the name escaped: a key that begins with it lives in their slot.
func Tag(client string) string { return "{client:" + tagEscaper.Replace(client) + "}" }

// Admit checks k's limits and counts the request; it returns nil when the
// request may go on. A key without limits is always admitted, uncounted.
func (l *Limiter) Admit(ctx context.Context, k *config.ClientKey) *Refusal {
	if k == nil || !k.Limited() {
		return nil
	}
	now := l.now()
	keys, ends := windows(k.Name, now)
	cs := caps(k)
	i := l.c.Admit(ctx, keys, cs)
	if i < 0 {
		return nil
	}
	l.refused.Store(k.Name, held{limit: i, cap: cs[i], until: ends[i]})
	return refusal(k.Name, i, cs[i], ends[i].Sub(now.UTC()))
}

// Refused is k's last refusal by Admit on this Limiter while that limit's
// window has not turned and its cap is unchanged (a reload may raise it),
// with RetryAfter counted from now; nil otherwise (a nil Limiter refuses
// nothing). It reads no counter and counts nothing: within a window a
// counter only grows, so Admit would refuse k again. The front asks before
// it reads a request's body, so a key its limits have cut off holds none of
// the in-flight body allowance (docs/config.md, client_keys).
func (l *Limiter) Refused(k *config.ClientKey) *Refusal {
	if l == nil || k == nil || !k.Limited() {
		return nil
	}
	v, ok := l.refused.Load(k.Name)
	if !ok {
		return nil
	}
	h := v.(held)
	now := l.now().UTC()
	if !now.Before(h.until) || caps(k)[h.limit] != h.cap {
		return nil
	}
	return refusal(k.Name, h.limit, h.cap, h.until.Sub(now))
}

// refusal is the Refusal of key name over limit i (cap c), wait before its
// window turns.
func refusal(name string, i int, c int64, wait time.Duration) *Refusal {
	r := &Refusal{Limit: Names[i], RetryAfter: wait}
	switch i {
	case RequestsPerMinute, TokensPerMinute:
		r.Message = fmt.Sprintf("client key %q is over its %s limit (%d); retry after %s", name, Names[i], c, seconds(wait))
	default:
		// When, for a person (Retry-After carries the seconds for a
		// machine): the turn of the UTC day or month (operator review 48b).
		at := "at 00:00 UTC"
		if i == USDPerMonth {
			at = "on the 1st of next month, 00:00 UTC"
		}
		r.Message = fmt.Sprintf("client key %q has spent its %s budget ($%g); it resets %s, in %s", name, Names[i], float64(c)/microUSD, at,
			span(time.Duration(RetryAfterSeconds(wait))*time.Second))
	}
	return r
}

// span is d for a person: days and hours past two days ("24d 21h",
// operator review 60: "597h21m40s"), else as time.Duration says it.
func span(d time.Duration) string {
	if d < 48*time.Hour {
		return d.String()
	}
	return fmt.Sprintf("%dd %dh", d/(24*time.Hour), d%(24*time.Hour)/time.Hour)
}

// seconds is d rounded up to whole seconds, as Retry-After says it.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%ds", RetryAfterSeconds(d))
}

// RetryAfterSeconds is d in whole seconds, rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) int64 {
	s := int64(math.Ceil(d.Seconds()))
	return max(s, 1)
}

// Spend records what a request of k used: tokens (in the minute) and cost
// in USD (in the day and month). A key without limits records nothing in
// a counter; the cost of a window k has no budget for is kept aside for a
// reload that gives it one (TakeUncounted). Negative amounts and NaN
// count as nothing, and amounts past Ceiling as Ceiling.
func (l *Limiter) Spend(ctx context.Context, k *config.ClientKey, tokens int, usd float64) {
	if k == nil || tokens <= 0 && usd <= 0 {
		return
	}
	if day, month := k.Budget.USDPerDay > 0, k.Budget.USDPerMonth > 0; usd > 0 && !(day && month) {
		l.keepUncounted(k.Name, !day, !month, usd)
	}
	if !k.Limited() {
		return
	}
	keys, _ := windows(k.Name, l.now())
	cs := caps(k)
	var micro int64
	if cs[USDPerDay] > 0 || cs[USDPerMonth] > 0 {
		micro = l.micro(k.Name, usd)
	}
	deltas := []int64{0, 0, 0, 0}
	if cs[TokensPerMinute] > 0 {
		deltas[TokensPerMinute] = min(int64(max(tokens, 0)), Ceiling)
	}
	if cs[USDPerDay] > 0 {
		deltas[USDPerDay] = micro
	}
	if cs[USDPerMonth] > 0 {
		deltas[USDPerMonth] = micro
	}
	l.c.Add(ctx, keys, deltas)
}

// micro is usd in whole micro-dollars with what name's earlier spends left
// over, keeping the new remainder for the next.
func (l *Limiter) micro(name string, usd float64) int64 {
	if !(usd > 0) || usd*microUSD >= Ceiling {
		return saturate(usd * microUSD)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	whole, frac := math.Modf(usd*microUSD + l.carry[name])
	if l.carry == nil {
		l.carry = make(map[string]float64)
	}
	l.carry[name] = frac
	return saturate(whole)
}

// Restore adds what k spent before this process started, read back from
// the decision log (app: restoreBudgets), to its day's and month's
// counters: with state memory a restart would otherwise give every key a
// fresh budget (operator review 50). day is the part of month spent since
// the day began (UTC). A key without a budget records nothing.
func (l *Limiter) Restore(ctx context.Context, k *config.ClientKey, day, month float64) {
	cs := caps(k)
	if cs[USDPerDay] <= 0 && cs[USDPerMonth] <= 0 {
		return
	}
	keys, _ := windows(k.Name, l.now())
	deltas := []int64{0, 0, 0, 0}
	// To the nearest micro-dollar: the amounts are sums of many costs, a
	// hair under the figure the log says (operator review 60: $1.82 read
	// back as $1.819999).
	if cs[USDPerDay] > 0 {
		deltas[USDPerDay] = saturate(math.Round(day * microUSD))
	}
	if cs[USDPerMonth] > 0 {
		deltas[USDPerMonth] = saturate(math.Round(month * microUSD))
	}
	l.c.Add(ctx, keys, deltas)
}

// Standing is where a client key stands against one of its limits.
type Standing struct {
	// Limit is one of Names.
	Limit string `json:"limit"`
	// Cap and Used are in the limit's unit: requests, tokens or USD.
	Cap  float64 `json:"cap"`
	Used float64 `json:"used"`
	// Resets is when the limit's window turns (UTC).
	Resets time.Time `json:"resets"`
}

// Full reports whether the limit refuses the key's next request: Admit
// refuses at a count that has reached its cap, whichever replica counted
// the request that reached it (spend is counted after the request, so a
// budget may be past its cap).
func (s Standing) Full() bool { return s.Cap > 0 && s.Used >= s.Cap }

// LimitNames returns the names of k's limits, as metrics label them: those of
// Names it has, and max_concurrent when it caps its requests in progress.
func LimitNames(k *config.ClientKey) []string {
	var out []string
	for i, c := range caps(k) {
		if c > 0 {
			out = append(out, Names[i])
		}
	}
	if k.MaxConcurrent > 0 {
		out = append(out, "max_concurrent")
	}
	return out
}

// Cap is k's cap for the limit named (one of Names, or max_concurrent),
// in the limit's unit (USD for a budget); 0 for none.
func Cap(k *config.ClientKey, name string) float64 {
	if name == "max_concurrent" {
		return float64(k.MaxConcurrent)
	}
	for i, c := range caps(k) {
		if Names[i] == name {
			if i == USDPerDay || i == USDPerMonth {
				return float64(c) / microUSD
			}
			return float64(c)
		}
	}
	return 0
}

// Standings returns where k stands against each limit it has, read from
// the counters (shared ones: every replica's spend), counting nothing;
// nil for a key without limits. A counter that did not answer reads as
// this replica's own counts.
func (l *Limiter) Standings(ctx context.Context, k *config.ClientKey) []Standing {
	if l == nil || k == nil || !k.Limited() {
		return nil
	}
	keys, ends := windows(k.Name, l.now())
	cs := caps(k)
	used := l.c.Read(ctx, keys)
	var out []Standing
	for i, c := range cs {
		if c <= 0 {
			continue
		}
		s := Standing{Limit: Names[i], Cap: float64(c), Used: float64(used[i]), Resets: ends[i]}
		if i == USDPerDay || i == USDPerMonth {
			s.Cap, s.Used = s.Cap/microUSD, s.Used/microUSD
		}
		out = append(out, s)
	}
	return out
}
