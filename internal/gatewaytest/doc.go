// Package gatewaytest is a test helper that runs a whole Detour in-process:
// configuration from YAML, app.New, a loopback listener, app.Serve in a
// goroutine and, when the test ends, shutdown and close. Records is a
// decision sink a test can wait on. Only tests (e2e, bench, demo) import it.
//
// It imports app, config and decision, nothing else of ours.
package gatewaytest
