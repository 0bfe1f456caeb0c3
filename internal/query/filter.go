package query

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// Attempt classes beyond the twelve failure classes.
const (
	ClassOK       = "ok"       // the attempt answered
	ClassCanceled = "canceled" // the client went away during the attempt
)

// AttemptClass names what an attempt came to: one of the twelve classes,
// "ok", or "canceled".
func AttemptClass(a decision.Attempt) string {
	switch {
	case a.Class != "":
		return a.Class
	case a.Action == decision.ActionDone:
		return ClassOK
	}
	return ClassCanceled
}

// Classes lists every name AttemptClass returns: ok, the twelve, canceled.
func Classes() []string {
	return append(append([]string{ClassOK}, classify.ClassNames()...), ClassCanceled)
}

// Outcomes lists the request outcomes.
func Outcomes() []string {
	return []string{decision.OutcomeOK, decision.OutcomeError, decision.OutcomeCanceled, decision.OutcomeShutdown}
}

// APIs lists the doors a decision record's api names (docs/behaviour.md,
// "The decision record"): a count_tokens call is "messages", every path of
// the Gemini door "gemini".
func APIs() []string {
	return []string{"chat", "messages", "responses", "embeddings", "completions", "gemini"}
}

// API is the door d came through: its api, or "chat" for a record written
// before doors existed (no api).
func API(d *decision.Decision) string {
	if d.API == "" {
		return "chat"
	}
	return d.API
}

// Filter selects records. The zero value selects every record; each field
// set narrows the selection.
type Filter struct {
	Route    string
	Target   string // some attempt went to this target
	Provider string // some attempt went to this provider
	// Class: the request ended with this class, or some attempt came to it
	// (see AttemptClass).
	Class   string
	Outcome string
	// API: the request came through this door (see API).
	API    string
	Client string
	// ID keeps the record of this decision id (the X-Detour-Decision
	// header a client got).
	ID string
	// Since keeps records whose time is not before it.
	Since time.Time
}

// Check reports a Class, Outcome or API that no record can have, so a typo is
// an error rather than an empty result.
func (f Filter) Check() error {
	if f.Class != "" && !slices.Contains(Classes(), f.Class) {
		return fmt.Errorf("unknown class %q (want one of %s)", f.Class, strings.Join(Classes(), ", "))
	}
	if f.Outcome != "" && !slices.Contains(Outcomes(), f.Outcome) {
		return fmt.Errorf("unknown outcome %q (want one of %s)", f.Outcome, strings.Join(Outcomes(), ", "))
	}
	if f.API != "" && !slices.Contains(APIs(), f.API) {
		hint := ""
		switch f.API { // the in-progress list's and the front refusals' names for these calls
		case "count_tokens":
			hint = "; a count_tokens call is recorded as messages"
		case "gemini_count_tokens", "gemini_embeddings":
			hint = "; every call at the Gemini door is recorded as gemini"
		}
		return fmt.Errorf("unknown api %q (want one of %s%s)", f.API, strings.Join(APIs(), ", "), hint)
	}
	return nil
}

// Match reports whether d is selected.
func (f Filter) Match(d *decision.Decision) bool {
	if f.Route != "" && d.Route != f.Route ||
		f.Outcome != "" && d.Outcome != f.Outcome ||
		f.API != "" && API(d) != f.API ||
		f.Client != "" && d.Client != f.Client ||
		f.ID != "" && d.ID != f.ID ||
		!f.Since.IsZero() && d.Time.Before(f.Since) {
		return false
	}
	if f.Target == "" && f.Provider == "" && (f.Class == "" || d.Class == f.Class) {
		return true
	}
	target, provider, class := f.Target == "", f.Provider == "", f.Class == "" || d.Class == f.Class
	for _, a := range d.Attempts {
		target = target || a.Target == f.Target
		provider = provider || a.Provider == f.Provider
		class = class || AttemptClass(a) == f.Class
	}
	return target && provider && class
}
