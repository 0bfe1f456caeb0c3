package suggest

import (
	"testing"

	"github.com/detour-llm/detour/internal/decision"
)

// Review 65i. A bare 404 from a passthrough path the operator declared
// (completions: true, responses: true) is read as the wrong declaration it
// most likely is: unknown, its evidence saying to check the option (review
// 65f). It is no answer to place with a rule. Before this fix the
// console's Unknowns and `detour classify --suggest` offered one for it,
// and by the keyword "not found" the class they suggested was unavailable:
//
//   - {provider: liar, status: 404, match: '(?i)Not[^"]*?Found', class: unavailable}
//
// Pasted, its evidence would be rule:1, which the dispatch's rereading of
// a bare 404 (status:404 alone) does not touch, so the endpoint would cool
// for unavailable_cooldown again, its chat requests with it: the cooldown
// review 65f took away. Seen with the built binary against a loopback
// server that lacks /completions and /responses.
func TestReview65iUnservedPathIsNoUnknownToPlace(t *testing.T) {
	for _, ev := range []string{
		"status:404 (no words: most likely a server without {base_url}/completions; check the provider's completions: true)",
		"status:404 (no words: most likely a server without {base_url}/responses; check the provider's responses: true)",
	} {
		a := &decision.Attempt{Target: "lied", Provider: "liar", Model: "instruct-2", Status: 404,
			Class: "unknown", Evidence: ev, Action: "next_target", Message: "Not Found"}
		if UnplacedAttempt(a) {
			c, _ := Parse(a.Message).Class(a.Status)
			t.Errorf("%s: offered as an unknown to place; its suggested rule (class %s) would cool the endpoint again", ev, c)
		}
	}
}
