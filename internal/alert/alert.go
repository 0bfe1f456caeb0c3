package alert

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for the zero values of Config.
const (
	DefaultMinInterval = time.Hour
	DefaultMaxRetries  = 5
	DefaultQueueSize   = 256
	DefaultTimeout     = 10 * time.Second // of the default HTTP client

	claimTimeout = 5 * time.Second // one Claim or Release call (a store round trip)
)

// Metrics is the part of *metrics.Metrics the notifier reports to. A value
// that also has AlertFailed(provider, class string) is told about alerts that
// were due but could not be delivered.
type Metrics interface {
	Alert(provider, class string, sent bool)
}

type failedMetrics interface {
	AlertFailed(provider, class string)
}

// loggedMetrics counts an alert that was due and, with no webhook, went to
// the log alone.
type loggedMetrics interface {
	AlertLogged(provider, class string)
}

// Config configures a Notifier. The zero value is usable: it sends nothing
// (no webhook) but still de-duplicates, counts and logs.
type Config struct {
	Webhook     string        // "" disables sending (alerts are still counted and logged)
	MinInterval time.Duration // 0 means 1h; a negative value sends every verdict (alerts.min_interval: 0), maxDeliveries at once
	Claimer     Claimer       // nil means a process-local LocalClaimer
	Client      *http.Client  // nil means a client with a 10s timeout that follows no redirects
	Logger      *slog.Logger  // nil means slog.Default()
	Metrics     Metrics       // optional
	MaxRetries  int           // 0 means 5; a negative value means none

	// Backoff returns the wait before retry n (1, 2, …). Nil means 1s
	// doubling, jittered, capped at 1m.
	Backoff func(n int) time.Duration
	// Now is the clock for first_seen and time; nil means time.Now.
	Now func() time.Time
	// QueueSize bounds the verdicts waiting for the background goroutine;
	// 0 means 256.
	QueueSize int
	// Scrub removes secrets from the evidence before it reaches a payload
	// or a log line (the process passes its current scrubber, see package
	// redact); nil leaves it to Redact alone.
	Scrub func(string) string
	// Replica names the replica in each payload ("" none), and Loaded is
	// when the configuration it serves was loaded (nil: not said): during
	// a rolling reload of a new key, a page from a replica still on the
	// old one read as "the new key failed too" (operator review 56).
	Replica string
	Loaded  func() time.Time
}

// Notifier turns quota and auth verdicts into operator alerts. Its methods
// are safe for concurrent use; a nil *Notifier does nothing.
type Notifier struct {
	cfg   Config
	log   *slog.Logger
	queue chan event

	stop     chan struct{} // closed by Close: drain the queue and exit
	done     chan struct{} // closed when the worker has exited
	ctx      context.Context
	cancel   context.CancelFunc // aborts claims, posts and backoff waits
	closed   atomic.Bool
	once     sync.Once
	delivery sync.WaitGroup

	slots chan struct{} // with no interval: one per alert being delivered (maxDeliveries)

	mu      sync.Mutex
	pending map[string]*tally // "provider\x00class" -> verdicts since the last alert
	// tail holds, by "provider\x00class", the end of the account's last
	// post being delivered: the next waits for it (link), so pages and
	// recoveries arrive in the order they were decided (hostile 56b,
	// review 56b: they raced, and the channel's last word was at times
	// the wrong one). said is the last word decided for the account:
	// "page" or "recovered" (recover.go).
	tail map[string]chan struct{}
	said map[string]string
}

type event struct {
	provider, class, evidence, said string
	at, until                       time.Time
	since                           time.Time     // a recovery's: out since (zero: not known)
	target                          string        // a recovery's: the target whose request it answered
	recovered                       bool          // Recovered's, not a verdict
	synced                          chan struct{} // tests: closed when the worker reaches it
}

type tally struct {
	firstSeen time.Time
	count     int
	evidence  string    // the last verdict's (an alert sent with no interval for verdicts held back)
	said      string    // the last verdict's upstream words that were given
	until     time.Time // the last verdict's end of cooldown, when said
}

// New starts a Notifier and its background goroutine; Close stops it.
func New(c Config) *Notifier {
	if c.MinInterval == 0 {
		c.MinInterval = DefaultMinInterval
	}
	if c.Claimer == nil {
		c.Claimer = &LocalClaimer{Now: c.Now}
	}
	if c.Client == nil {
		c.Client = &http.Client{
			Timeout:       DefaultTimeout,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = DefaultMaxRetries
	} else if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.QueueSize <= 0 {
		c.QueueSize = DefaultQueueSize
	}
	n := &Notifier{
		cfg:     c,
		log:     c.Logger.With("component", "alert"),
		queue:   make(chan event, c.QueueSize),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
		pending: make(map[string]*tally),

		tail:  make(map[string]chan struct{}),
		said:  make(map[string]string),
		slots: make(chan struct{}, maxDeliveries),
	}
	n.ctx, n.cancel = context.WithCancel(context.Background())
	go n.run()
	return n
}

// Notify records one quota or auth verdict for provider. It never blocks:
// when the queue is full (or the Notifier closed) the verdict is dropped
// with a log line.
func (n *Notifier) Notify(provider, class, evidence string) {
	n.NotifyUntil(provider, class, evidence, "", time.Time{})
}

// NotifyUntil is Notify with what the upstream said (its message, the
// client's words already masked; "" for none) and when the account is
// tried again (the end of the cooldown the verdict began; zero: not said).
// The alert quotes the words, since "quota" alone does not tell a spent
// balance from one free model's daily allowance (operator review 50b), and
// says when, and how to end it sooner (operator review 55: the operator
// woken for a spent balance could not tell how long the provider stays
// out, nor that a top-up alone changes nothing until then). The words are
// scrubbed as the evidence is.
func (n *Notifier) NotifyUntil(provider, class, evidence, said string, until time.Time) {
	if n == nil {
		return
	}
	if n.closed.Load() {
		n.log.Warn("alert dropped: notifier closed", "provider", provider, "class", class)
		return
	}
	select {
	case n.queue <- event{provider: provider, class: class, evidence: evidence, said: said, until: until, at: n.cfg.Now()}:
	default:
		n.log.Error("alert dropped: queue full", "provider", provider, "class", class)
		n.failed(provider, class)
	}
}

// Close stops accepting verdicts, handles those already queued and waits for
// their deliveries (retries included) until ctx ends; then it aborts what is
// left and returns ctx.Err(). It may be called more than once.
func (n *Notifier) Close(ctx context.Context) error {
	if n == nil {
		return nil
	}
	n.once.Do(func() {
		n.closed.Store(true)
		close(n.stop)
	})
	finished := make(chan struct{})
	go func() {
		<-n.done
		n.delivery.Wait()
		close(finished)
	}()
	select {
	case <-finished:
		n.cancel()
		return nil
	case <-ctx.Done():
		n.cancel()
		<-finished // cancel makes claims, posts and waits return promptly
		return ctx.Err()
	}
}

// run is the background goroutine: it handles verdicts in order until Close,
// then drains the queue.
func (n *Notifier) run() {
	defer close(n.done)
	for {
		select {
		case ev := <-n.queue:
			n.handle(ev)
		case <-n.stop:
			for {
				select {
				case ev := <-n.queue:
					n.handle(ev)
				default:
					return
				}
			}
		}
	}
}

// sync waits until the worker has handled every verdict queued before it
// (tests use it to order steps without sleeping).
func (n *Notifier) sync() {
	ch := make(chan struct{})
	n.queue <- event{synced: ch}
	<-ch
}

// handle counts one verdict, and when this replica wins the claim for its
// provider and class, raises the alert.
func (n *Notifier) handle(ev event) {
	if ev.synced != nil {
		close(ev.synced)
		return
	}
	if ev.recovered {
		n.recover(ev)
		return
	}
	if n.cfg.Scrub != nil {
		ev.evidence = n.cfg.Scrub(ev.evidence)
	}
	ev.evidence = Redact(ev.evidence)
	if ev.said != "" {
		if n.cfg.Scrub != nil {
			ev.said = n.cfg.Scrub(ev.said)
		}
		ev.said = Redact(ev.said)
	}
	key := ev.provider + "\x00" + ev.class
	n.mu.Lock()
	t := n.pending[key]
	if t == nil {
		t = &tally{firstSeen: ev.at}
		n.pending[key] = t
	}
	t.count++
	t.evidence = ev.evidence
	if ev.said != "" {
		t.said = ev.said
	}
	if !ev.until.IsZero() {
		t.until = ev.until
	}
	every := n.cfg.MinInterval < 0
	won := every && n.slot() // under mu: a delivery ending reads pending under it too
	n.mu.Unlock()

	claimedAt := n.cfg.Now()
	if !won && (every || !n.claim(ev)) {
		n.log.Debug("alert suppressed", "provider", ev.provider, "class", ev.class, "evidence", ev.evidence)
		n.alerted(ev.provider, ev.class, false)
		return
	}

	n.mu.Lock()
	delete(n.pending, key)
	n.said[key] = EventPage
	n.mu.Unlock()
	p := n.stamp(newPayload(ev, *t, n.cfg.Now()))
	if n.cfg.Webhook == "" {
		if every {
			<-n.slots // nothing to deliver
		}
		n.log.Warn("alert (no webhook configured)", "provider", p.Provider, "class", p.Class,
			"evidence", p.Evidence, "count", p.Count, "first_seen", p.FirstSeen)
		if l, ok := n.cfg.Metrics.(loggedMetrics); ok {
			l.AlertLogged(ev.provider, ev.class)
		}
		return
	}
	n.delivery.Add(1)
	prev, done := n.link(key)
	go func() {
		n.await(prev) // the account's post before this one goes first
		n.send(ev, *t, p, claimedAt)
		n.unlink(key, done)
	}()
}

// restore puts the verdicts of an undelivered alert back, so the next alert
// for the same provider and class reports them too.
func (n *Notifier) restore(key string, lost tally) {
	n.mu.Lock()
	defer n.mu.Unlock()
	t := n.pending[key]
	if t == nil {
		n.pending[key] = &lost
		return
	}
	t.count += lost.count
	if lost.firstSeen.Before(t.firstSeen) {
		t.firstSeen = lost.firstSeen
	}
}

func (n *Notifier) alerted(provider, class string, sent bool) {
	if n.cfg.Metrics != nil {
		n.cfg.Metrics.Alert(provider, class, sent)
	}
}

func (n *Notifier) failed(provider, class string) {
	if f, ok := n.cfg.Metrics.(failedMetrics); ok {
		f.AlertFailed(provider, class)
	}
}

// Rearm ends the de-duplication of provider's alerts on every replica:
// an operator reset its account, or a reload changed its key, so the
// next verdict against it pages at once instead of up to MinInterval
// later (operator review 50b: a fix that failed was never paged). What
// is pending is kept: it goes in that alert. classes are the classes
// whose alerts are rearmed (the caller's: this package knows none).
func (n *Notifier) Rearm(ctx context.Context, provider string, classes []string) {
	if n == nil || n.cfg.MinInterval < 0 {
		return
	}
	for _, c := range classes {
		n.cfg.Claimer.Forget(ctx, claimKey(event{provider: provider, class: c}))
		n.cfg.Claimer.Forget(ctx, recoveredKey(provider, c)) // the account's next return is said too
	}
}
