package suggest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// Rule is one classify.rules entry, as a YAML flow mapping to paste under
// `classify: rules:`: narrowed by provider, dialect and status (each when
// given), matching match (none when ""), deciding class. The expression is
// single-quoted (only ' needs doubling there); a name is written plainly
// when YAML reads it back as the same string.
func Rule(provider, dialect string, status int, match string, class classify.Class) string {
	var b strings.Builder
	b.WriteString("- {")
	if provider != "" {
		b.WriteString("provider: " + scalar(provider) + ", ")
	}
	if dialect != "" {
		b.WriteString("dialect: " + scalar(dialect) + ", ")
	}
	if status > 0 {
		b.WriteString("status: " + strconv.Itoa(status) + ", ")
	}
	if match != "" {
		b.WriteString("match: '" + strings.ReplaceAll(match, "'", "''") + "', ")
	}
	b.WriteString("class: " + class.String() + "}")
	return b.String()
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// scalar writes a name plainly when it can be, else single-quoted.
func scalar(s string) string {
	if plainName.MatchString(s) && s != "true" && s != "false" && s != "null" && s != "~" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Unplaced reports whether an attempt of class and evidence is an answer
// the classifier could not place: unknown, and not by one of the
// operator's own rules (evidence "rule:N"), which placed it on purpose (a
// rule with class unknown, docs/config.md): a rule suggested for it would
// undo the operator's (operator review 52). Nor an attempt Detour never
// sent (decision.Unsent): no upstream answered it. Nor a bare 404 from a
// passthrough path the operator declared (decision.UnservedPath): its
// fix is the provider's option, and a rule suggested for it ("not found":
// unavailable) would cool the endpoint, chat included, for
// unavailable_cooldown again (review 65i).
func Unplaced(class, evidence string) bool {
	return class == classify.Unknown.String() && !strings.HasPrefix(evidence, "rule:") && !decision.Unsent(evidence) &&
		!decision.UnservedPath(evidence)
}

// UnplacedAttempt reports whether a recorded attempt is Unplaced and not
// a refusal Detour handled by sending the request again adapted
// (decision.Attempt.Handled: a server refusing base64 embeddings would
// otherwise fill the Unknowns on every request it serves).
func UnplacedAttempt(a *decision.Attempt) bool {
	return Unplaced(a.Class, a.Evidence) && !a.Handled()
}
