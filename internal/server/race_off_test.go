//go:build !race

package server_test

// raceOn: the race detector doubles the stack guard, so stacks grow sooner
// under it.
const raceOn = false
