package dispatch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/route"
)

// target tries t's endpoints in order. It returns a Result when the request
// is over (answered, committed or canceled); otherwise the class of the last
// failure, for the route to decide whether to move on.
func (w *walk) target(ctx context.Context, t *targetRT) (*Result, classify.Class) {
	cs := make([]route.Candidate, len(t.endpoints))
	for i, e := range t.endpoints {
		st := w.status[e.key]
		cs[i] = route.Candidate{Cooling: waiting(st), Until: st.Until}
	}
	var queue []*endpointRT
	for _, i := range route.Endpoints(cs) {
		queue = append(queue, t.endpoints[i])
	}
	deferred := map[*endpointRT]bool{}
	var c classify.Class
	for i := 0; i < len(queue); i++ {
		e := queue[i]
		if errors.Is(ctx.Err(), context.Canceled) {
			return w.clientLeft(), c
		}
		if why := w.budget(ctx); why != "" {
			w.stopWhy = why
			for _, rest := range queue[i:] {
				w.skip(rest, why)
			}
			return nil, c
		}
		probe := false
		// A probe held elsewhere was ordered last: reaching it means every
		// other candidate is spent, and health never denies service.
		if st := w.status[e.key]; st.Phase == health.Probing && !st.ProbeHeld && !deferred[e] {
			ok, tr := w.d.opt.Health.TryProbe(ctx, e.key)
			w.transitions(e.key, tr)
			if !ok {
				// Another request (or replica) holds the one probe: try the
				// others first, and this one last rather than never.
				deferred[e] = true
				queue = append(queue, e)
				continue
			}
			probe = true
		}
		res, o := w.endpoint(ctx, e, probe)
		if res != nil {
			return res, c
		}
		c = o.verdict.Class
		if w.stopWhy != "" || !w.r.table.Row(c).NextEndpoint || i+1 >= len(queue) {
			return nil, c
		}
		w.setAction(decision.ActionNextEndpoint)
	}
	return nil, c
}

// endpoint makes one attempt at e and the same-endpoint retries its class
// allows. It returns a Result when the request is over, else the failure.
func (w *walk) endpoint(ctx context.Context, e *endpointRT, probe bool) (*Result, *outcome) {
	for retried := false; ; retried = true {
		o := w.attempt(ctx, e, probe)
		w.last, w.lastEP = o, e
		switch {
		case o.canceled:
			return &Result{Canceled: true, Committed: o.committed, Target: e.key.Target, Provider: e.key.Provider}, o
		case o.ok:
			w.rec.Attempts[len(w.rec.Attempts)-1].Action = decision.ActionDone
			return &Result{Body: o.body, Committed: o.committed, Target: e.key.Target, Provider: e.key.Provider}, o
		case o.committed:
			w.rec.Attempts[len(w.rec.Attempts)-1].Action = decision.ActionStop
			return &Result{Committed: true, Failure: &Failure{Status: o.status, Class: o.verdict.Class, Message: o.message},
				Target: e.key.Target, Provider: e.key.Provider}, o
		}
		wait, ok := w.retryWait(o)
		// A failed probe is not retried: the endpoint has just cooled
		// again, and it takes one probe request, not two.
		if retried || !ok || probe {
			return nil, o
		}
		if why := w.budget(ctx); why != "" {
			w.stopWhy = why
			return nil, o
		}
		if dl, has := ctx.Deadline(); has && time.Until(dl) <= wait {
			return nil, o
		}
		w.setAction(decision.ActionRetry)
		if !sleep(ctx, wait) {
			if errors.Is(ctx.Err(), context.Canceled) {
				return w.clientLeft(), o
			}
			w.setAction(decision.ActionStop) // the deadline passed while waiting
			return nil, o
		}
		w.upstream += wait
	}
}

// retryWait says whether o's class is retried on the same endpoint, and after
// how long.
func (w *walk) retryWait(o *outcome) (time.Duration, bool) {
	switch w.r.table.Row(o.verdict.Class).Retry {
	case policy.RetryOnce:
		return w.d.opt.Backoff(), true
	case policy.RetryAfterWait:
		ra := o.verdict.RetryAfter
		return ra, ra > 0 && ra <= w.d.maxWait
	case policy.RetryNever:
	}
	return 0, false
}

// budget returns why no further attempt may be made, or "".
func (w *walk) budget(ctx context.Context) string {
	if n := len(w.rec.Attempts); n >= w.maxAtt {
		return fmt.Sprintf("budget spent: max_attempts %d", w.maxAtt)
	}
	if w.maxBill > 0 && w.billable >= w.maxBill {
		return fmt.Sprintf("budget spent: max_billable_attempts %d", w.maxBill)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "deadline passed"
	}
	return ""
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
