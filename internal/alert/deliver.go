package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Payload is the JSON body POSTed to the webhook: a page, or a recovery
// (Event).
type Payload struct {
	// Event is "page" (a quota or auth verdict) or "recovered" (the
	// account paged for Class answered again: Recovered, DownSince).
	Event     string `json:"event"`
	Provider  string `json:"provider"`
	Class     string `json:"class"`
	Evidence  string `json:"evidence,omitempty"`
	FirstSeen string `json:"first_seen,omitempty"` // RFC 3339: first verdict since the last alert was sent
	Count     int    `json:"count,omitempty"`      // verdicts since the last alert, this replica
	Time      string `json:"time"`                 // RFC 3339: when the alert was raised
	// Message is what the upstream said, as the decision record keeps it
	// (the client's words masked, secrets scrubbed); "" when it said nothing.
	Message string `json:"message,omitempty"`
	// TriedAgain is RFC 3339: when the cooldown this verdict began ends
	// and the account is tried again; "" when not said.
	TriedAgain string `json:"tried_again,omitempty"`
	// Recovered is RFC 3339: when the account answered again (a
	// recovery's); DownSince since when it had been out, "" when not
	// known.
	Recovered string `json:"recovered,omitempty"`
	DownSince string `json:"down_since,omitempty"`
	// Target is the target whose request the recovered account answered:
	// an account cooled for one model's spent allowance may be closed by
	// another model's success.
	Target string `json:"target,omitempty"`
	// Replica is the replica that sent it; ConfigLoadedAt (RFC 3339) when
	// the configuration it serves was loaded: a page from a replica not
	// yet reloaded with a new key says so (Config.Replica, Config.Loaded).
	Replica        string `json:"replica,omitempty"`
	ConfigLoadedAt string `json:"config_loaded_at,omitempty"`
	Text           string `json:"text"` // one human sentence
}

// stamp adds to p the replica that sends it and when its configuration
// was loaded, in the fields and at the end of the sentence.
func (n *Notifier) stamp(p Payload) Payload {
	p.Replica = n.cfg.Replica
	if n.cfg.Loaded != nil {
		if at := n.cfg.Loaded(); !at.IsZero() {
			p.ConfigLoadedAt = at.UTC().Format(time.RFC3339)
		}
	}
	switch {
	case p.Replica != "" && p.ConfigLoadedAt != "":
		p.Text += " (replica " + p.Replica + ", configuration loaded " + p.ConfigLoadedAt + ")"
	case p.Replica != "":
		p.Text += " (replica " + p.Replica + ")"
	case p.ConfigLoadedAt != "":
		p.Text += " (configuration loaded " + p.ConfigLoadedAt + ")"
	}
	return p
}

// Event values.
const (
	EventPage      = "page"
	EventRecovered = "recovered"
)

func recoveredPayload(ev event, now time.Time) Payload {
	p := Payload{
		Event: EventRecovered, Provider: ev.provider, Class: ev.class,
		Time: now.UTC().Format(time.RFC3339), Recovered: ev.at.UTC().Format(time.RFC3339),
	}
	p.Target = ev.target
	p.Text = fmt.Sprintf("Detour: provider %s is back (%s): it answered at %s", p.Provider, p.Class, p.Recovered)
	if p.Target != "" {
		p.Text = fmt.Sprintf("Detour: provider %s is back (%s): it answered a request for target %s at %s", p.Provider, p.Class, p.Target, p.Recovered)
	}
	if !ev.since.IsZero() {
		p.DownSince = ev.since.UTC().Format(time.RFC3339)
		p.Text += fmt.Sprintf(", out since %s (%s)", p.DownSince, ev.at.Sub(ev.since).Round(time.Second))
	}
	p.Text += "; its requests go to it again"
	return p
}

func newPayload(ev event, t tally, now time.Time) Payload {
	p := Payload{
		Event:     EventPage,
		Provider:  ev.provider,
		Class:     ev.class,
		Evidence:  ev.evidence,
		FirstSeen: t.firstSeen.UTC().Format(time.RFC3339),
		Count:     t.count,
		Time:      now.UTC().Format(time.RFC3339),
		Message:   t.said,
	}
	times := "once"
	if p.Count != 1 {
		times = fmt.Sprintf("%d times", p.Count)
	}
	p.Text = fmt.Sprintf("Detour: provider %s: %s (%s) — %s since %s", p.Provider, p.Class, mrkdwn(p.Evidence), times, p.FirstSeen)
	if p.Message != "" {
		p.Text += ": " + codeSpan(mrkdwn(strconv.Quote(p.Message)))
	}
	if !t.until.IsZero() {
		p.TriedAgain = t.until.UTC().Format(time.RFC3339)
		// The request that tries it again gets its answer where the route
		// does not move on for this class (operator review 63e: the page
		// said only that requests go elsewhere).
		p.Text += ". Its requests go to other providers until " + p.TriedAgain +
			", when one request tries it again (on a route whose fallback_on leaves out " + p.Class +
			", that request gets its answer); after a top-up or a new key, POST /v1/health/reset (with one of admin_keys) ends that at once"
	}
	return p
}

// mrkdwn escapes what Slack-style hooks parse in text, &, < and >, as
// Slack's formatting reference says to escape them (api.slack.com,
// reference/surfaces/formatting#escaping): the upstream's words quoted in
// Text are shown, never read as a channel ping (<!channel>), a mention or
// a link whose label hides its address (hostile 54). Message keeps them
// as the upstream wrote them.
var mrkdwn = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace

// codeSpan sets s, the upstream's words, in a code span (its own backticks
// made quotes), which Slack, Mattermost and Discord show as written: the
// &, < and > escapes keep Slack from reading a ping or a link, but
// Mattermost and Discord also read Markdown links ([label](address)) and
// mentions (@channel, @all, @everyone) in plain text, which an upstream's
// error (or the client's words it quotes) can hold (hostile 68d).
func codeSpan(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

// minReattempt is the least wait before a replica attempts again an alert
// it could not deliver, whatever Backoff says.
const minReattempt = time.Second

// claimKey is the Claimer key of a provider and class.
func claimKey(ev event) string { return "alert:" + ev.provider + ":" + ev.class }

// maxDeliveries bounds the alerts being delivered at once with no interval.
// Each delivery holds a goroutine and a connection to the webhook through
// its retries (a minute and more when the webhook is slow), and a provider
// that answers every request with a quota verdict meets thousands a minute:
// one delivery per verdict opened as many connections (review 39i).
const maxDeliveries = 16

// slot takes one of maxDeliveries, or reports that all are taken: with no
// interval (negative) nothing is claimed — a claim of no length is no claim
// (Redis's SET NX with none would hold for ever) — and every verdict is its
// own alert while a slot is free. A verdict met when none is stays pending
// and goes in the next alert for its provider and class, which the delivery
// that frees a slot sends at once (next). The caller holds n.mu.
func (n *Notifier) slot() bool {
	select {
	case n.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// next is, with no interval, what a delivery that ended sends next: the
// verdicts of a provider and class held back meanwhile (its key), or none,
// and then its slot is freed (under n.mu, so a verdict is either seen here
// or finds a slot free).
func (n *Notifier) next() (string, *tally) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for key, t := range n.pending {
		delete(n.pending, key)
		return key, t
	}
	<-n.slots
	return "", nil
}

// claim asks the Claimer for the right to alert about ev's provider and class
// for MinInterval (never called with no interval: slot).
func (n *Notifier) claim(ev event) bool {
	ctx, cancel := context.WithTimeout(n.ctx, claimTimeout)
	defer cancel()
	return n.cfg.Claimer.Claim(ctx, claimKey(ev), n.cfg.MinInterval)
}

// release gives the claim back after an alert could not be delivered, so the
// next replica (or this one's next attempt) may page: the operator is told
// once per interval, never zero times. It runs even while the Notifier is
// being aborted.
func (n *Notifier) release(ev event) {
	if n.cfg.MinInterval < 0 {
		<-n.slots // nothing was claimed: free the delivery's slot
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(n.ctx), claimTimeout)
	defer cancel()
	n.cfg.Claimer.Release(ctx, claimKey(ev))
}

// send delivers one won alert on its own goroutine (the caller has added it
// to n.delivery). When every try fails it releases the claim, puts the
// verdicts back, and — until MinInterval has passed since the claim — waits
// Backoff(MaxRetries+1), claims again and sends what is pending then,
// unless another replica has paged meanwhile (the claim is lost) or the
// Notifier is closing. The wait is at least a second.
func (n *Notifier) send(ev event, t tally, p Payload, claimedAt time.Time) {
	defer n.delivery.Done()
	key := ev.provider + "\x00" + ev.class
	for {
		err := n.deliver(p)
		if err == nil {
			n.log.Warn("alert sent", "provider", p.Provider, "class", p.Class,
				"evidence", p.Evidence, "count", p.Count, "first_seen", p.FirstSeen)
			n.alerted(ev.provider, ev.class, true)
			if n.cfg.MinInterval >= 0 {
				return
			}
			k, pt := n.next()
			if pt == nil {
				return
			}
			key, t, ev.evidence = k, *pt, pt.evidence
			ev.provider, ev.class, _ = strings.Cut(k, "\x00")
			p = n.stamp(newPayload(ev, t, n.cfg.Now()))
			continue
		}
		n.log.Error("alert not delivered; its claim is released so it can be sent again", "provider", p.Provider, "class", p.Class,
			"evidence", p.Evidence, "count", p.Count, "error", err)
		n.release(ev)
		n.restore(key, t)
		n.failed(ev.provider, ev.class)
		inInterval := func() bool { return n.cfg.Now().Before(claimedAt.Add(n.cfg.MinInterval)) }
		if !inInterval() || !n.wait(max(n.cfg.Backoff(n.cfg.MaxRetries+1), minReattempt)) || !inInterval() {
			return
		}
		if !n.claim(ev) {
			return // another replica pages; the verdicts stay pending here
		}
		n.mu.Lock()
		pt := n.pending[key]
		delete(n.pending, key)
		n.mu.Unlock()
		if pt == nil { // taken by an alert raised meanwhile
			return
		}
		t = *pt
		p = n.stamp(newPayload(ev, t, n.cfg.Now()))
	}
}

// wait sleeps d unless the Notifier is closing or aborted; it reports
// whether the full wait passed.
func (n *Notifier) wait(d time.Duration) bool {
	select {
	case <-n.stop:
		return false
	default:
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-n.stop:
		return false
	case <-n.ctx.Done():
		return false
	}
}

// deliver POSTs p to the webhook, retrying non-2xx answers and network errors
// up to MaxRetries times with backoff. It gives up early when the Notifier is
// aborted.
func (n *Notifier) deliver(p Payload) error {
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var last error
	for try := 0; try <= n.cfg.MaxRetries; try++ {
		if try > 0 {
			n.log.Warn("alert delivery failed; retrying", "provider", p.Provider, "class", p.Class, "try", try, "error", last)
			if err := sleep(n.ctx, n.cfg.Backoff(try)); err != nil {
				return fmt.Errorf("%w (aborted: %v)", last, err)
			}
		}
		if last = n.post(body); last == nil {
			return nil
		}
	}
	return fmt.Errorf("%w (after %d tries)", last, n.cfg.MaxRetries+1)
}

// post sends one attempt. Its errors never contain the webhook URL.
func (n *Notifier) post(body []byte) error {
	req, err := http.NewRequestWithContext(n.ctx, http.MethodPost, n.cfg.Webhook, bytes.NewReader(body))
	if err != nil {
		return errors.New("bad webhook URL")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "detour-alert")
	resp, err := n.cfg.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // *url.Error repeats the URL, which may hold a secret
		}
		return fmt.Errorf("webhook: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook: status %d", resp.StatusCode)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// DefaultBackoff waits about 1s before the first retry, doubling each time up
// to 1m, with jitter: a uniform pick in [d/2, d].
func DefaultBackoff(n int) time.Duration {
	d := time.Minute
	if n >= 1 && n <= 6 {
		d = min(time.Second<<(n-1), time.Minute)
	}
	return d/2 + rand.N(d/2+1)
}

// keyLike matches tokens shaped like API keys and bearer secrets: a known key
// prefix, or a long unbroken run of key characters.
var keyLike = regexp.MustCompile(`(?i)\b(?:sk-|sk_|pk-|rk-|xai-|gsk_|AIza|ya29\.|Bearer\s+)[A-Za-z0-9._\-]{6,}|[A-Za-z0-9_\-]{32,}`)

// maxEvidence bounds the evidence carried by an alert.
const maxEvidence = 256

// Redact removes key-shaped tokens from s and bounds its length. Evidence
// names a rule ("phrase:credit balance is too low", "rule:3"), but a provider
// may echo part of a key in its message: it must not reach a webhook or log.
func Redact(s string) string {
	s = keyLike.ReplaceAllString(s, "[redacted]")
	if len(s) > maxEvidence {
		cut := maxEvidence
		for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
