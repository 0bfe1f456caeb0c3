// Package app wires one Detour process from a configuration: the health
// store (memory or Redis), the decision log, operator alerts, metrics, the
// dispatcher and the HTTP server; it serves until its context ends, then
// drains in-flight requests within a grace period and flushes the decision
// log. Reload swaps in a new configuration atomically.
//
// It is the only package besides cmd/detour that knows every other one.
package app
