// Package archtest holds the import rules of Detour's packages as a test:
// for each package, which of ours it may import, and why. A new import
// that crosses a line fails the test until the rule (and its reason) is
// written down here.
package archtest
