package console

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/suggest"
)

// maxGroups bounds the unknown groups kept; the least recently seen goes
// (of the provider that holds half or more: evict).
const maxGroups = 500

// Group is unknown answers from one provider with one status whose
// messages read the same once what varies in them is masked (quoted values,
// URLs, ids, numbers: internal/suggest, which detour classify --suggest
// shares).
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
	// answers of the group ("" when they carried no word to match on);
	// Class the class suggested for it (from the message's words, else the
	// status's usual meaning: the operator's call); Rule the rule line to
	// paste under classify.rules.
	Match string `json:"match"`
	Class string `json:"class"`
	Rule  string `json:"rule"`
}

type groups struct {
	max int
	m   map[string]*Group
}

func newGroups(max int) *groups { return &groups{max: max, m: map[string]*Group{}} }

// add counts an unknown attempt seen at at, whose message reads text.
func (g *groups) add(a decision.Attempt, text suggest.Text, at time.Time) {
	key := a.Provider + "\x00" + strconv.Itoa(a.Status) + "\x00" + text.Key()
	gr := g.m[key]
	if gr == nil {
		if len(g.m) >= g.max {
			g.evict(a.Provider)
		}
		match := text.Regexp()
		class, _ := text.Class(a.Status)
		gr = &Group{Provider: a.Provider, Status: a.Status, Pattern: text.Display(), First: at, Match: match, Class: class.String(),
			Rule: suggest.Rule(a.Provider, "", a.Status, match, class)}
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

// evict makes room for a group of provider: the least recently seen group
// goes, but of provider's own when it holds half the groups or more, so
// one provider's flood of different messages (a relay's, or an upstream
// quoting a client's words back) fills its half and pushes no other
// provider's groups out (hostile 68d).
func (g *groups) evict(provider string) {
	var oldest, own string
	n := 0
	for k, gr := range g.m {
		if oldest == "" || gr.Last.Before(g.m[oldest].Last) {
			oldest = k
		}
		if gr.Provider == provider {
			n++
			if own == "" || gr.Last.Before(g.m[own].Last) {
				own = k
			}
		}
	}
	if 2*n >= g.max {
		oldest = own
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
