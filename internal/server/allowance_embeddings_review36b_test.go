package server_test

import (
	"strings"
	"testing"
	"time"
)

// Review 36b. The burst of TestEmbeddingsAllowanceReturnsToZeroAfterABurst
// under an allowance so tight that the parse's reservation and each
// attempt's buildCalls are refused or take the overdraft, with retries at
// the same Gemini endpoint reusing kept batches (a 503 mid-request) and
// failover: the allowance ends at zero.
func TestReview36bEmbeddingsTightAllowanceBurstDrains(t *testing.T) {
	// Gemini fails one call in three (503) and delays the others up to
	// 3 ms; embedAllowanceCfg a quarter the size.
	url, a := embedBurstGateway(t, 3, 4, strings.NewReplacer(
		"max_body_bytes: 1048576", "max_body_bytes: 262144", "max_inflight_body_bytes: 8388608", "max_inflight_body_bytes: 1048576"))
	statuses := burst(url, 200, 12, func(i int) (string, string, time.Duration) {
		var body string
		switch i % 3 {
		case 0:
			body = embeddingsBody(250, 200) // three Gemini calls
		case 1:
			body = embeddingsBody(2048, 1)
		default:
			body = embeddingsBody(120, 1500)
		}
		var cut time.Duration
		if i%5 == 0 {
			cut = time.Duration(1+i%7) * time.Millisecond
		}
		return "/v1/embeddings", body, cut
	})
	t.Logf("statuses %v", statuses)
	if !drained(a.Server) {
		t.Fatalf("after the burst the allowance holds %d bytes (overdrawn: %v), want 0", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}
