package main

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// TestCheckOperatorLineResetNeedsAdminKeys_r50b: with no admin_keys, check
// says /v1/health/reset is "open to anyone who reaches them", but the
// server refuses every reset then (healthreset.go: 403
// admin_keys_required, "it ends cooldowns, which no client may do"). An
// operator reading check thinks any client can end cooldowns, or that a
// reset works without a key.
func TestCheckOperatorLineResetNeedsAdminKeys_r50b(t *testing.T) {
	line := operatorLine(&config.Config{})
	if i := strings.Index(line, "open to anyone"); i >= 0 && strings.Contains(line[:i], "/v1/health/reset") {
		t.Errorf("check says %q; without admin_keys every reset is refused (403 admin_keys_required)", line)
	}
}
