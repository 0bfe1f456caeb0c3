package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 47 of 509af48..HEAD. Each test fails on the code under review;
// /work/review47/REPORT.md says the fix suggested.

// TestR47RefusalPartAndMemberSentOnce: an assistant turn may carry its
// refusal both as a {"type":"refusal"} content part and as the refusal
// member (a client that kept both forms of one answer). The Gemini
// translation sends the text once ("a member that repeats a part's text
// is sent once", docs/doors.md); assistantBlocks appends the member
// whatever the parts said, so Claude reads the refusal twice, as two text
// blocks. Suggested fix: skip the member when a block already holds its
// (trimmed) text, as modelParts does.
func TestR47RefusalPartAndMemberSentOnce(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"refusal","refusal":"I can't help with that."}],"refusal":"I can't help with that."},{"role":"user","content":"ok"}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "I can't help with that."); n != 1 {
		t.Errorf("the refusal is sent %d times: %s", n, out)
	}
}
