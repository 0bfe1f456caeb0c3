//go:build race

package testutil

// Race reports whether the binary runs under the race detector, which
// changes what allocates and makes long sweeps slow.
const Race = true
