// Package metrics exposes Detour's Prometheus metrics (GET /metrics, docs/behaviour.md#api):
// requests, attempts by class, failovers, endpoint and account states,
// upstream latency, the gateway's own overhead and operator alerts.
//
// Every metric lives on the package's own registry (plus the Go runtime and
// process collectors), never on the global default one, so tests and tools
// can create as many independent *Metrics as they like. A nil *Metrics is
// valid: every method is a no-op, so callers that do not care may pass nil.
//
// Labels carry only configured names (route, target, provider), the twelve
// class names and fixed words; never a key, a prompt or free text. Values of
// the fixed vocabularies (outcome, class, action, state) outside their set are
// recorded as "other", and configured-name labels are bounded in shape and
// number (see guard.go), so a caller's mistake cannot blow up cardinality.
// Retain (retain.go) tells it what the configuration serves: series of what a
// reload removed are deleted and stay gone.
//
// It imports client_golang and classify (for the class names) only.
package metrics
