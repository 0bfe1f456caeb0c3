//go:build race

package sse

// raceEnabled: the race detector changes what allocates.
const raceEnabled = true
