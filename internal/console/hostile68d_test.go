package console

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// letters writes n in the letters a–z: a word the Unknowns' grouping does
// not mask (it masks numbers and ids).
func letters(n int) string {
	s := ""
	for {
		s = string(rune('a'+n%26)) + s
		n /= 26
		if n == 0 {
			return s
		}
	}
}

// hostile 68d: the Unknowns page keeps at most 500 groups, the least
// recently seen going first. One upstream — a relay the operator
// configured, or any upstream that quotes a client's words back in an
// error the classifier cannot place, steered by one client key — answering
// 500 messages of different words pushed every other provider's groups
// out: the page an operator reads to place a provider's new failures
// showed the one provider alone, within a minute of traffic. A provider
// holding half the groups or more now gives up its own oldest, so it can
// fill its half and no more.
func TestHostile68dOneProviderCannotPushTheOthersOutOfUnknowns(t *testing.T) {
	c := New(Options{Size: 10})
	at := time.Now().Add(-time.Hour)
	write := func(provider, msg string) {
		at = at.Add(time.Millisecond)
		c.Write(&decision.Decision{ID: decision.NewID(), Time: at, Route: "r", Outcome: "error",
			Attempts: []decision.Attempt{{Target: "t", Provider: provider, Status: 400, Class: "unknown", Evidence: "status:400", Action: "stop",
				Message: decision.UpstreamMessage(msg)}}})
	}
	for i := range 10 {
		write("vendor", "The vendor declined the request: reason "+letters(i))
	}
	for i := range 3 * maxGroups {
		write("relay", "relay says frob "+letters(i)+" quux")
	}
	kept, relay := 0, 0
	for _, g := range c.unknowns() {
		switch g.Provider {
		case "vendor":
			kept++
		case "relay":
			relay++
		}
	}
	if kept != 10 {
		t.Errorf("after one provider's %d different unknowns, the Unknowns page keeps %d of another provider's 10 groups (%d of the flooding provider's)", 3*maxGroups, kept, relay)
	}
	if relay == 0 || kept+relay > maxGroups {
		t.Errorf("groups kept: %d and %d, want at most %d in all and the flooding provider's newest", kept, relay, maxGroups)
	}
}
