package alert

import (
	"context"
	"time"
)

// Recovered tells the operator that provider's account, paged for class,
// serves again: a request for target it answered at at closed its
// cooldown, and it had been out since since (zero: not known). Health
// announces that change once across replicas, so it is posted once
// (operator review 55: no post said an account was back, and the operator
// woken for it kept looking). The target is said: an account may cool for
// one model's spent allowance, and the request that closes it may be
// another model's (hostile 56b).
//
// It also rearms class's page for provider, as Rearm does, so the
// account's next failure pages at once rather than up to MinInterval
// later; the verdicts held back meanwhile are dropped: they were about the
// outage that ended. It rearms once per MinInterval (claimed as a page
// is, across replicas): an account that fails and serves by turns (an
// account_cooldown shorter than MinInterval) posted a page and a recovery
// every cooldown (hostile 56b). Within the interval a recovery is still
// said after a page this replica posted, so the last word is never "down"
// for an account that serves (review 56b), and not otherwise: at most two
// pages and two recoveries an interval. Like Notify, it never blocks.
func (n *Notifier) Recovered(provider, class, target string, since, at time.Time) {
	if n == nil {
		return
	}
	if n.closed.Load() {
		n.log.Warn("recovery not posted: notifier closed", "provider", provider, "class", class)
		return
	}
	select {
	case n.queue <- event{provider: provider, class: class, target: target, since: since, at: at, recovered: true}:
	default:
		n.log.Error("recovery not posted: queue full", "provider", provider, "class", class)
	}
}

// recoveredKey is the Claimer key of the rearm a recovery makes.
func recoveredKey(provider, class string) string { return "recovered:" + provider + ":" + class }

// recover handles a recovery (Recovered): rearm if the interval allows,
// forget what is held back, and post unless the last word already says
// the account is back.
func (n *Notifier) recover(ev event) {
	key := ev.provider + "\x00" + ev.class
	rearmed := false
	if n.cfg.MinInterval >= 0 {
		ctx, cancel := context.WithTimeout(n.ctx, claimTimeout)
		if rearmed = n.cfg.Claimer.Claim(ctx, recoveredKey(ev.provider, ev.class), n.cfg.MinInterval); rearmed {
			n.cfg.Claimer.Forget(ctx, claimKey(ev))
		}
		cancel()
	}
	n.mu.Lock()
	last := n.said[key]
	if !rearmed && last != EventPage && n.cfg.MinInterval >= 0 {
		n.mu.Unlock()
		n.log.Debug("recovery suppressed: one was said within min_interval", "provider", ev.provider, "class", ev.class)
		return
	}
	n.said[key] = EventRecovered
	delete(n.pending, key)
	n.mu.Unlock()
	p := recoveredPayload(ev, n.cfg.Now())
	if !rearmed && n.cfg.MinInterval >= 0 {
		p.Text += "; it failed again since its last recovery, within " + n.cfg.MinInterval.String() +
			": until that has passed, neither its next failure nor its next return is posted (GET /v1/health tells)"
	}
	p = n.stamp(p)
	if n.cfg.Webhook == "" {
		n.log.Warn("recovered (no webhook configured)", "provider", p.Provider, "class", p.Class,
			"recovered", p.Recovered, "down_since", p.DownSince)
		return
	}
	prev, done := n.link(key)
	n.delivery.Add(1)
	go func() {
		defer n.delivery.Done()
		defer n.unlink(key, done)
		n.await(prev)
		if err := n.deliver(p); err != nil {
			n.log.Error("recovery not delivered", "provider", p.Provider, "class", p.Class, "error", err)
			n.unsaid(ev, rearmed)
			return
		}
		n.log.Warn("recovery sent", "provider", p.Provider, "class", p.Class, "down_since", p.DownSince)
	}()
}

// unsaid takes back a recovery that could not be delivered: its claim, so
// the next recovery is said (review 56b: the interval's later recoveries
// were suppressed, though none had been posted), and the last word, the
// page before it.
func (n *Notifier) unsaid(ev event, claimed bool) {
	key := ev.provider + "\x00" + ev.class
	n.mu.Lock()
	if n.said[key] == EventRecovered {
		n.said[key] = EventPage
	}
	n.mu.Unlock()
	if claimed {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(n.ctx), claimTimeout)
		n.cfg.Claimer.Release(ctx, recoveredKey(ev.provider, ev.class))
		cancel()
	}
}

// link makes a post of the account at key the last in its order: it waits
// for prev (nil: none) and closes done once delivered (unlink). Called on
// the worker goroutine, in the order posts are decided.
func (n *Notifier) link(key string) (prev, done chan struct{}) {
	done = make(chan struct{})
	n.mu.Lock()
	prev = n.tail[key]
	n.tail[key] = done
	n.mu.Unlock()
	return prev, done
}

// unlink ends a post linked with done.
func (n *Notifier) unlink(key string, done chan struct{}) {
	n.mu.Lock()
	if n.tail[key] == done {
		delete(n.tail, key)
	}
	n.mu.Unlock()
	close(done)
}

// await waits for prev, a post before this one, unless the Notifier is
// aborted.
func (n *Notifier) await(prev chan struct{}) {
	if prev == nil {
		return
	}
	select {
	case <-prev:
	case <-n.ctx.Done():
	}
}
