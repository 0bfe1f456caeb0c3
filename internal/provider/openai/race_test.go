//go:build race

package openai

// raceEnabled: the race detector changes what allocates.
const raceEnabled = true
