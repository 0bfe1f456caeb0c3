package console

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/redact"
)

// maxGroups bounds the unknown groups kept; the least recently seen goes.
const maxGroups = 500

// Group is unknown answers from one provider with one status whose
// messages read the same once numbers, ids and quoted values are masked.
type Group struct {
	Provider string `json:"provider"`
	Status   int    `json:"status"`
	// Pattern is the normalised message; Example the latest message as sent.
	Pattern string    `json:"pattern"`
	Example string    `json:"example"`
	Count   int       `json:"count"`
	First   time.Time `json:"first"`
	Last    time.Time `json:"last"`
	// Match is a Go regular expression for classify.rules that matches the
	// answers of the group ("" when they carried no message); Class the
	// class suggested for it (the status's usual meaning: the operator's
	// call); Rule the rule line to paste under classify.rules.
	Match string `json:"match"`
	Class string `json:"class"`
	Rule  string `json:"rule"`
}

type groups struct {
	max int
	m   map[string]*Group
}

func newGroups(max int) *groups { return &groups{max: max, m: map[string]*Group{}} }

// add counts an unknown attempt seen at at, whose message reads pattern
// once normalised.
func (g *groups) add(a decision.Attempt, pattern string, at time.Time) {
	msg := strings.TrimSuffix(a.Message, "…") // a truncated message is a prefix
	key := a.Provider + "\x00" + strconv.Itoa(a.Status) + "\x00" + strings.ToLower(pattern)
	gr := g.m[key]
	if gr == nil {
		if len(g.m) >= g.max {
			g.evict()
		}
		match := MatchFor(msg)
		class := suggestClass(a.Status)
		gr = &Group{Provider: a.Provider, Status: a.Status, Pattern: pattern, First: at, Match: match, Class: class,
			Rule: RuleLine(a.Provider, a.Status, match, class)}
		g.m[key] = gr
	}
	gr.Count++
	gr.Example = a.Message
	if at.After(gr.Last) {
		gr.Last = at
	}
	if at.Before(gr.First) {
		gr.First = at
	}
}

func (g *groups) evict() {
	var oldest string
	for k, gr := range g.m {
		if oldest == "" || gr.Last.Before(g.m[oldest].Last) {
			oldest = k
		}
	}
	delete(g.m, oldest)
}

// list returns copies of the groups, the most recently seen first.
func (g *groups) list() []Group {
	out := make([]Group, 0, len(g.m))
	for _, gr := range g.m {
		out = append(out, *gr)
	}
	slices.SortFunc(out, func(a, b Group) int {
		if c := b.Last.Compare(a.Last); c != 0 {
			return c
		}
		return strings.Compare(a.Pattern, b.Pattern)
	})
	return out
}

// unknowns returns the unknown groups, the most recently seen first.
func (c *Console) unknowns() []Group {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unknown.list()
}

// Placeholders in a normalised message.
const (
	maskQuoted = "<q>"
	maskURL    = "<url>"
	maskID     = "<id>"
	maskNumber = "<n>"
)

// maskers are mask's expressions, compiled at the first use: a process
// that never sees an unknown answer does not hold them (0.5 MiB, the
// largest allocation of any package's start: docs/benchmarks.md, "Round 6").
var maskers = sync.OnceValue(func() *maskRes {
	return &maskRes{
		// A quoted value: the opening quote must not follow a letter or
		// digit, so the apostrophes of "don't … it's" are not taken for
		// quotes.
		quoted: regexp.MustCompile("(^|[^\\pL\\pN])(?:'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`|“[^”\n]{0,200}”|‘[^’\n]{0,200}’)"),
		url:    regexp.MustCompile(`https?://[^\s"'<>]+`),
		// What the scrubber put where an upstream echoed a secret or an
		// address (internal/redact): records reach the console scrubbed,
		// and a rule matches the raw answer, so these are masked like what
		// they hide.
		scrubbedPlace:  regexp.MustCompile(redact.PlacePattern + `[^\s"'<>]*`),
		scrubbedSecret: regexp.MustCompile(redact.SecretPattern),
		// A word of letters, digits, - and _ with a digit in it: an id
		// when it is 6 characters or longer and has a letter (req_7f3a9c,
		// gpt-4o, a UUID, a key), else a number with a unit.
		word:   regexp.MustCompile(`[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*`),
		number: regexp.MustCompile(`[0-9]+(?:[.,][0-9]+)*`),
		space:  regexp.MustCompile(`\s+`),
	}
})

type maskRes struct {
	quoted, url, scrubbedPlace, scrubbedSecret, word, number, space *regexp.Regexp
}

// mask replaces what varies between answers that say the same thing
// (quoted values, URLs, ids, numbers, and the scrubber's [redacted] and
// [provider NAME]) with the placeholders given.
func mask(msg, quoted, url, id, number string) string {
	re := maskers()
	s := re.quoted.ReplaceAllString(msg, "${1}"+quoted)
	s = re.url.ReplaceAllString(s, url)
	s = re.scrubbedPlace.ReplaceAllLiteralString(s, url)
	s = re.scrubbedSecret.ReplaceAllLiteralString(s, id)
	s = re.word.ReplaceAllStringFunc(s, func(w string) string {
		if len(w) >= 6 && strings.ContainsFunc(w, unicode.IsLetter) {
			return id
		}
		return w
	})
	return re.number.ReplaceAllString(s, number)
}

// Normalise masks what varies between answers that say the same thing:
// quoted values, URLs, ids and numbers, and collapses white space, so
// "Request 7781 rejected for 'gpt-4o'" and "Request 12 rejected for
// 'o3'" read alike. (detour classify --suggest groups the same way; this is
// the console's copy until the two meet in one place.)
func Normalise(msg string) string {
	s := mask(msg, maskQuoted, maskURL, maskID, maskNumber)
	return strings.TrimSpace(maskers().space.ReplaceAllString(s, " "))
}

// maxMatch bounds the length of a suggested regular expression.
const maxMatch = 160

// MatchFor returns a Go regular expression for classify.rules that matches
// the body that carried msg, and the bodies of answers that differ from it
// only in what Normalise masks. It is built from the literal parts of the
// message in order, joined by ".*", case-insensitive; characters a JSON
// body may escape (quotes, backslash, slash, <, >, &, control characters)
// end a literal part. "" when msg has no usable text.
func MatchFor(msg string) string {
	s := mask(msg, "\x00", "\x00", "\x00", "\x00")
	parts := strings.FieldsFunc(s, func(r rune) bool {
		return r == 0 || r == '"' || r == '\\' || r == '/' || r == '<' || r == '>' || r == '&' || unicode.IsControl(r) ||
			r == '\u2028' || r == '\u2029'
	})
	var kept []string
	size := 0
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if len([]rune(strings.ReplaceAll(p, " ", ""))) < 3 { // "a", ", ", "s." say nothing
			continue
		}
		q := regexp.QuoteMeta(p)
		if size > 0 && size+len(q)+2 > maxMatch {
			break
		}
		kept = append(kept, q)
		size += len(q) + 2
	}
	if len(kept) == 0 {
		return ""
	}
	return "(?i)" + strings.Join(kept, ".*")
}

// suggestClass is the class a status usually means, as a starting point for
// the operator's choice.
func suggestClass(status int) string {
	switch {
	case status == 401:
		return "auth"
	case status == 402:
		return "quota"
	case status == 403:
		return "forbidden"
	case status == 404 || status == 410:
		return "unavailable"
	case status == 408:
		return "timeout"
	case status == 413:
		return "overflow"
	case status == 429:
		return "rate_limited"
	case status >= 500:
		return "server_error"
	}
	return "bad_request"
}

// RuleLine is one classify.rules entry, as a YAML flow mapping to paste
// under `classify: rules:`. The regular expression is single-quoted (only
// ' needs doubling there) and narrowed by provider and status.
func RuleLine(provider string, status int, match, class string) string {
	var b strings.Builder
	b.WriteString("- {provider: " + yamlScalar(provider))
	if status > 0 {
		b.WriteString(", status: " + strconv.Itoa(status))
	}
	if match != "" {
		b.WriteString(", match: '" + strings.ReplaceAll(match, "'", "''") + "'")
	}
	b.WriteString(", class: " + class + "}")
	return b.String()
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// yamlScalar writes a configured name plainly when it can be, else quoted.
func yamlScalar(s string) string {
	if plainName.MatchString(s) && s != "true" && s != "false" && s != "null" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
