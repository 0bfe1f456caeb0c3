// Package archtest holds the import rules of Detour's packages as a test:
// for each package, which of ours it may import, and why. A new import
// that crosses a line fails the test until the rule (and its reason) is
// written down here. It also fails when a Go file cites the founding
// specification, which is not in the repository: code cites docs/ instead
// (docs/behaviour.md and its sections).
package archtest
