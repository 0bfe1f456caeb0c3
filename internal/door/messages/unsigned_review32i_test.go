package messages

import (
	"strings"
	"testing"
	"time"
)

// Review rev32i: DropUnsigned re-encodes the whole body with json.Marshal,
// which escapes every '<', '>' and '&' in every string as \u003c etc. (six
// bytes for one): a body at max_body_bytes (8 MiB by default) of code or
// HTML, with one unsigned thinking block anywhere, becomes a second body
// up to six times larger, held beside the first until the request ends
// (Native.Body is kept for failover) and counted by no
// max_inflight_body_bytes allowance. Dropping blocks must never make the
// body larger; nor should the client's text be rewritten at all.
func TestReview32iDropUnsignedGrowsBody(t *testing.T) {
	code := strings.Repeat("<", 4<<20) // 4 MiB of markup, as a pasted HTML file or C++ templates hold
	body := `{"model":"claude","max_tokens":64,"messages":[` +
		`{"role":"user","content":"` + code + `"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"from deepseek","signature":""},{"type":"text","text":"ok"}]},` +
		`{"role":"user","content":"go on"}]}`
	t0 := time.Now()
	out := DropUnsigned([]byte(body))
	took := time.Since(t0)
	if len(out) > len(body) {
		t.Errorf("a %d-byte body became %d bytes (%.1fx) after dropping one block (took %v); the user's text now starts %q",
			len(body), len(out), float64(len(out))/float64(len(body)), took, out[strings.Index(string(out), `"content":"`):][:40])
	}
}
