package metrics

import (
	"sync"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
)

// Label values that are not acceptable are replaced by one of these.
const (
	labelOther = "other" // a value outside its fixed vocabulary or over the cap
	labelNone  = "none"  // an empty value
)

// maxNameLen bounds a configured-name label value; maxNames bounds how many
// distinct values one configured-name label may take over the process life.
const (
	maxNameLen = 64
	maxNames   = 512
)

// vocab is a fixed set of acceptable label values.
type vocab map[string]struct{}

func newVocab(words ...string) vocab {
	v := make(vocab, len(words))
	for _, w := range words {
		v[w] = struct{}{}
	}
	return v
}

// of returns s if it is in the vocabulary, otherwise "other".
func (v vocab) of(s string) string {
	if _, ok := v[s]; ok {
		return s
	}
	if s == "" {
		return labelNone
	}
	return labelOther
}

var (
	outcomes = newVocab("ok", "error", "canceled", "shutdown")
	// classes: the twelve classes, "ok" for a successful attempt and
	// "canceled" for one the client left, as records and the console say.
	classes = newVocab(append(classify.ClassNames(), "ok", "canceled")...)
	actions = newVocab("next_endpoint", "next_target", "tail", "retry")
	states  = []string{"healthy", "cooling", "probing"}
)

// names guards one configured-name label (route, target, provider): values
// keep their spelling if they are configured, or look like a configured name
// (short, printable ASCII without spaces or quotes), and fewer than maxNames
// distinct values have been seen; everything else becomes "other". Configured names are few, so
// the cap only bites when a caller passes something it should not.
type names struct {
	mu   sync.RWMutex
	seen map[string]struct{}
	// current, once set by retain, is the configured set: any other value
	// (an attempt still in flight on a target a reload removed) is "other",
	// so a removed name's series stay gone.
	current map[string]struct{}
}

func (n *names) of(s string) string {
	if s == "" {
		return labelNone
	}
	n.mu.RLock()
	_, ok := n.seen[s]
	_, configured := n.current[s]
	retired := n.current != nil && !configured
	n.mu.RUnlock()
	if retired {
		return labelOther
	}
	if ok {
		return s
	}
	// A configured name is kept whatever its shape (Prometheus takes any
	// UTF-8): two endpoints named 通义 and 智谱 folded into one "other"
	// series showed a cooling endpoint as healthy (review 32g). The shape
	// guard is for values no configuration holds.
	if !configured && !nameShape(s) || !utf8.ValidString(s) {
		return labelOther // a label value that is not UTF-8 panics Prometheus
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.seen[s]; ok {
		return s
	}
	if len(n.seen) >= maxNames {
		return labelOther
	}
	if n.seen == nil {
		n.seen = make(map[string]struct{})
	}
	n.seen[s] = struct{}{}
	return s
}

// configured reports whether s may label a series: no configured set yet,
// or s is in it.
func (n *names) configured(s string) bool {
	n.mu.RLock()
	defer n.mu.RUnlock()
	_, ok := n.current[s]
	return n.current == nil || ok
}

// retain makes keep the configured set. It returns the values seen before
// that keep lacks (their series are to be deleted) and every value seen.
func (n *names) retain(keep []string) (gone, seen []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.current = make(map[string]struct{}, len(keep))
	for _, s := range keep {
		n.current[s] = struct{}{}
	}
	for s := range n.seen {
		seen = append(seen, s)
		if _, ok := n.current[s]; !ok {
			gone = append(gone, s)
			delete(n.seen, s)
		}
	}
	return gone, seen
}

// nameShape reports whether s looks like a configured name.
func nameShape(s string) bool {
	if len(s) > maxNameLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '\'' {
			return false
		}
	}
	return true
}

// statusClass buckets an HTTP status to "1xx".."5xx"; anything else (0 when
// no answer was written) is "none".
func statusClass(status int) string {
	switch {
	case status >= 100 && status < 200:
		return "1xx"
	case status >= 200 && status < 300:
		return "2xx"
	case status >= 300 && status < 400:
		return "3xx"
	case status >= 400 && status < 500:
		return "4xx"
	case status >= 500 && status < 600:
		return "5xx"
	}
	return labelNone
}
