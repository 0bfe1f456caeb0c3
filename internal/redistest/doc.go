// Package redistest runs a real redis-server on a loopback port for tests
// of shared state: started, killed (as a crash would) and restarted on the
// same port. Without the binary a test skips, except under CI=true, where it
// fails: CI must install redis-server.
//
// It imports nothing of ours.
package redistest
