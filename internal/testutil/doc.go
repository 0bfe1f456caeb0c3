// Package testutil holds the small test doubles several packages' tests
// share: Clock, a settable clock to inject where code takes a
// func() time.Time, and Buffer, a goroutine-safe buffer for logs and
// subprocess output that a test reads while something else writes;
// PyList, a list printed as Python's repr; and Race, whether the race
// detector is on.
//
// Only tests import it; it imports nothing of ours.
package testutil
