// Package demo runs simulated providers on loopback for `detour demo`: no
// keys, no network. Each one shows a behaviour an operator relies on, with
// error bodies copied from real provider answers (cited beside each).
//
// It imports upstreamtest, nothing else of ours.
package demo
