// Package e2e tests Detour end to end through its public interfaces only: a
// configuration file, the HTTP API (with the official OpenAI Go SDK as a
// client where it matters) and the decision record, against scripted fake
// providers on real loopback servers.
package e2e
