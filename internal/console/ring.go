package console

import (
	"strings"
	"sync"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/inprogress"
	"github.com/detour-llm/detour/internal/limit"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/query"
	"github.com/detour-llm/detour/internal/suggest"
)

// Options configure a Console.
type Options struct {
	// Size is how many recent records the ring keeps; 0 means
	// config.DefaultConsoleRingSize.
	Size int
	// State returns the configuration being served and its health tracker;
	// required for the pages (a nil State serves records only).
	State func() (*config.Config, *health.Tracker)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Replica names this process on the pages; "" means the host name.
	Replica string
	// Limits counts the client keys' limits, for the Keys page; nil shows
	// every key without its standing.
	Limits *limit.Limiter
	// Slots is how many of a client key's max_concurrent slots this
	// replica holds now, by the key's name (a request holds one from
	// before its body is read); nil counts the key's requests "In
	// progress" lists, which start once the body is read.
	Slots func(name string) int
	// Loaded is the configuration served and the last reload refused
	// since, which every page says (operator review 68e); nil says nothing.
	Loaded func() Loaded
}

// Loaded is when the configuration served was loaded (the start, or the
// last reload applied) and, when a reload was refused since, the last one.
type Loaded struct {
	At      time.Time `json:"loaded_at"`
	Refused *Refusal  `json:"reload_refused"` // null unless a reload was refused since At
}

// Refusal is a reload refused: when, and why as the log says it, one error
// a line ("file:line: message", scrubbed as the log's line is), at most 20
// of them and how many more the log has, and a hint when there is one.
type Refusal struct {
	At     time.Time `json:"at"`
	Errors []string  `json:"errors"`
	More   int       `json:"more"`
	Hint   string    `json:"hint,omitempty"`
}

// Console keeps what the pages show and serves them. Create it with New;
// it is safe for concurrent use.
type Console struct {
	opt Options

	mu      sync.Mutex
	ring    []entry // ring[(next-1)%len] is the newest
	next    uint64  // sequence number of the next record; 0 is never used
	minutes [60]minute
	hours   [costHours]costHour
	lastEP  map[health.Key]failure
	lastAcc map[string]failure
	unknown *groups

	progress inprogress.Set // the requests being served now (InProgress)
}

// InProgress is the set of requests being served now that the Decisions
// page lists ("In progress"): the server adds each request to it while it
// runs (server.New).
func (c *Console) InProgress() *inprogress.Set { return &c.progress }

// entry is one record in the ring with its sequence number.
type entry struct {
	seq uint64
	d   *decision.Decision
}

// minute counts attempts by class in one minute.
type minute struct {
	start  int64 // unix minute
	counts map[string]int
}

// failure is the last failed attempt seen at an endpoint or account.
type failure struct {
	Class    string    `json:"class"`
	Evidence string    `json:"evidence"`
	Status   int       `json:"status"`
	At       time.Time `json:"at"`
	// model is the model the attempt asked for: an endpoint's failure is
	// shown only while its target still names that model (apiHealth).
	model string
}

// New returns an empty Console.
func New(o Options) *Console {
	if o.Size <= 0 {
		o.Size = config.DefaultConsoleRingSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Console{opt: o, ring: make([]entry, o.Size), next: 1,
		lastEP: map[health.Key]failure{}, lastAcc: map[string]failure{}, unknown: newGroups(maxGroups)}
}

// Write keeps d (a decision.Sink). d must not change afterwards.
func (c *Console) Write(d *decision.Decision) {
	// Reading a message is done before the lock every request's record
	// waits for. A message an older record cut short ends with "…": the
	// rest is not the upstream's.
	var texts []suggest.Text
	for i := range d.Attempts {
		a := &d.Attempts[i]
		if suggest.UnplacedAttempt(a) {
			texts = append(texts, suggest.Parse(strings.TrimSuffix(a.Message, "…")))
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ring[c.next%uint64(len(c.ring))] = entry{seq: c.next, d: d}
	c.next++
	c.addCost(d)
	for i := range d.Attempts {
		a := &d.Attempts[i]
		at := d.Time.Add(time.Duration(a.StartMS * float64(time.Millisecond)))
		if !decision.Unsent(a.Evidence) { // upstream attempts only, as /metrics counts them
			c.count(at, query.AttemptClass(*a))
		}
		if a.Class == "" || decision.Unsent(a.Evidence) || a.Handled() {
			continue // a success, an attempt Detour did not send, or a refusal it answered by sending again adapted: no failure of the endpoint's
		}
		f := failure{Class: a.Class, Evidence: a.Evidence, Status: a.Status, At: at, model: a.Model}
		c.lastEP[health.Key{Target: a.Target, Provider: a.Provider}] = f
		if cl, err := classify.ParseClass(a.Class); err == nil {
			if policy.For(cl).Cool == policy.CoolAccount {
				c.lastAcc[a.Provider] = f
			}
			if suggest.UnplacedAttempt(a) {
				c.unknown.add(*a, texts[0], at)
				texts = texts[1:]
			}
		}
	}
}

// count adds one attempt of class at time at to its minute, if that minute
// is within the last hour.
func (c *Console) count(at time.Time, class string) {
	m := at.Unix() / 60
	now := c.opt.Now().Unix() / 60
	if m > now || m <= now-60 {
		return
	}
	slot := &c.minutes[m%60]
	if slot.start != m {
		*slot = minute{start: m, counts: map[string]int{}}
	}
	slot.counts[class]++
}

// recent returns up to limit records newer than after that f selects,
// newest first, and the newest sequence number.
func (c *Console) recent(f query.Filter, after uint64, limit int) ([]entry, uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []entry
	n := uint64(len(c.ring))
	for seq := c.next - 1; seq > after && seq > 0 && c.next-seq <= n && len(out) < limit; seq-- {
		e := c.ring[seq%n]
		if f.Match(e.d) {
			out = append(out, e)
		}
	}
	return out, c.next - 1
}

// byID returns the record with id, if still in the ring.
func (c *Console) byID(id string) *decision.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.ring {
		if e.d != nil && e.d.ID == id {
			return e.d
		}
	}
	return nil
}

// perMinute returns the start of each of the last 60 minutes (oldest
// first) and, for every class counted in them, its count per minute.
func (c *Console) perMinute() ([]time.Time, map[string][]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opt.Now().Unix() / 60
	starts := make([]time.Time, 60)
	counts := map[string][]int{}
	for i := range 60 {
		m := now - 59 + int64(i)
		starts[i] = time.Unix(m*60, 0).UTC()
		slot := c.minutes[m%60]
		if slot.start != m {
			continue
		}
		for class, n := range slot.counts {
			if counts[class] == nil {
				counts[class] = make([]int, 60)
			}
			counts[class][i] = n
		}
	}
	return starts, counts
}

// lastFailures returns copies of the last failure per endpoint and account.
func (c *Console) lastFailures() (map[health.Key]failure, map[string]failure) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := make(map[health.Key]failure, len(c.lastEP))
	for k, v := range c.lastEP {
		ep[k] = v
	}
	acc := make(map[string]failure, len(c.lastAcc))
	for k, v := range c.lastAcc {
		acc[k] = v
	}
	return ep, acc
}
