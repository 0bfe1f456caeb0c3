package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
	"github.com/detour-llm/detour/internal/suggest"
)

// `detour classify --suggest` turns unknown verdicts into classify.rules:
//
//	detour classify --suggest [FILE|-]                 a decision log (JSON lines)
//	detour classify --suggest --jsonl [-c FILE] [FILE|-] answers {status, body, …}
//
// From a decision log it reads every attempt of class unknown and its
// message (the one failed attempts record whose quoted values alone are
// masked: an unknown's, dispatch.attemptMessage); from answers it
// classifies each line (with -c, the configuration's rules first) and keeps
// the unknown ones with classify.Message of their body. Messages are grouped
// by provider (or dialect), status and normalised text — quoted values,
// UUIDs, hex strings, ids and numbers masked (suggest_text.go) — and each
// group is printed as a count, a sample and one ready classify.rules line
// whose match is a Go regular expression for the group's messages as they
// appear in a raw body, with the class a keyword heuristic suggests. The
// suggestion is for review: the heuristic reads words, not meaning.

// unknownAnswer is one unknown verdict and what a rule can narrow it by.
type unknownAnswer struct {
	provider string
	dialect  classify.Dialect
	status   int
	message  string // as decision.UpstreamMessage records it
}

// suggestion is a group of unknown answers with one suggested rule.
type suggestion struct {
	provider string
	dialect  classify.Dialect
	status   int
	count    int
	sample   string
	text     suggest.Text
	class    classify.Class
	keyword  string // "" when no keyword matched
}

// rule is the group's classify.rules line (YAML flow mapping).
func (s *suggestion) rule() string {
	return suggest.Rule(s.provider, string(s.dialect), s.status, s.text.Regexp(), s.class)
}

// openInput opens FILE, or stdin for none or "-".
func openInput(files []string, stdin io.Reader) (io.Reader, func(), error) {
	if len(files) == 0 || files[0] == "-" {
		return stdin, func() {}, nil
	}
	f, err := os.Open(files[0])
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// runSuggest reads in (a decision log, or answers with jsonl) and prints the
// suggested rules. Bad lines are reported on stderr by number and make the
// exit status 1; the rest still count.
func runSuggest(c *classify.Classifier, dialects map[string]string, jsonl bool, in io.Reader, stdout, stderr io.Writer) int {
	var unknowns []unknownAnswer
	code := 0
	err := query.Lines(in, func(n int, line []byte, err error) error {
		if line = bytes.TrimSpace(line); err == nil && len(line) == 0 {
			return nil
		}
		if err == nil {
			if jsonl {
				unknowns, err = answerUnknown(c, dialects, line, unknowns)
			} else {
				unknowns, err = recordUnknowns(line, unknowns)
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "detour classify --suggest: line %d: %v\n", n, err)
			code = 1
		}
		return nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "detour classify --suggest:", err)
		code = 1
	}
	w := bufio.NewWriter(stdout)
	writeSuggestions(w, unknowns)
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 1
	}
	return code
}

// recordUnknowns adds the unknown attempts of one decision record.
func recordUnknowns(line []byte, out []unknownAnswer) ([]unknownAnswer, error) {
	var d decision.Decision
	if err := json.Unmarshal(line, &d); err != nil {
		return out, fmt.Errorf("not a decision record: %v", err)
	}
	if d.Attempts == nil {
		return out, fmt.Errorf("not a decision record: no attempts")
	}
	for i := range d.Attempts {
		if a := &d.Attempts[i]; suggest.UnplacedAttempt(a) {
			out = append(out, unknownAnswer{provider: a.Provider, status: a.Status, message: a.Message})
		}
	}
	return out, nil
}

// answerUnknown classifies one answer line and adds it when unknown.
func answerUnknown(c *classify.Classifier, dialects map[string]string, line []byte, out []unknownAnswer) ([]unknownAnswer, error) {
	r, err := parseAnswer(line, dialects)
	if err != nil {
		return out, err
	}
	if v := c.Classify(r); !v.Failed || !suggest.Unplaced(v.Class.String(), v.Evidence) {
		return out, nil
	}
	msg := classify.Message(r.Body)
	if msg == "" {
		if t := bytes.TrimSpace(r.Body); len(t) > 0 && t[0] != '{' && t[0] != '[' {
			msg = string(t) // a plain-text error page
		}
	}
	return append(out, unknownAnswer{provider: r.Provider, dialect: r.Dialect, status: r.Status,
		message: decision.UpstreamMessage(msg)}), nil
}

// group builds the suggestions, most frequent first, and counts by status
// the unknowns that carry no message.
func group(unknowns []unknownAnswer) ([]*suggestion, map[int]int) {
	byKey := map[string]*suggestion{}
	var order []*suggestion
	bare := map[int]int{}
	for _, u := range unknowns {
		text := suggest.Parse(u.message)
		if !text.Literal() {
			bare[u.status]++
			continue
		}
		key := u.provider + "\x00" + string(u.dialect) + "\x00" + strconv.Itoa(u.status) + "\x00" + text.Key()
		s := byKey[key]
		if s == nil {
			s = &suggestion{provider: u.provider, dialect: u.dialect, status: u.status, sample: u.message, text: text}
			s.class, s.keyword = text.Class(u.status)
			byKey[key] = s
			order = append(order, s)
		}
		s.count++
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].count != order[j].count {
			return order[i].count > order[j].count
		}
		if order[i].status != order[j].status {
			return order[i].status < order[j].status
		}
		return order[i].text.Key() < order[j].text.Key()
	})
	return order, bare
}

func writeSuggestions(w io.Writer, unknowns []unknownAnswer) {
	groups, bare := group(unknowns)
	fmt.Fprintf(w, "# detour classify --suggest: %d unknown answers; groups with a message: %d.\n", len(unknowns), len(groups))
	if len(groups) > 0 {
		fmt.Fprintln(w, "# Suggestions for review: the class comes from keywords, not from meaning. Paste the lines")
		fmt.Fprintln(w, "# you agree with under classify: rules: (before broader rules of your own).")
	}
	for _, s := range groups {
		fmt.Fprintln(w)
		who := "any provider"
		switch {
		case s.provider != "":
			who = "provider " + s.provider
		case s.dialect != "":
			who = "dialect " + string(s.dialect)
		}
		fmt.Fprintf(w, "# %d× %s, status %d: %q\n", s.count, who, s.status, s.sample)
		if s.keyword != "" {
			fmt.Fprintf(w, "# suggested class %s (keyword %q)\n", s.class, s.keyword)
		} else {
			fmt.Fprintf(w, "# no keyword matched: %s is what status %d usually means; choose the class yourself\n", s.class, s.status)
		}
		fmt.Fprintln(w, s.rule())
	}
	if len(bare) > 0 {
		var sts []int
		for st := range bare {
			sts = append(sts, st)
		}
		sort.Ints(sts)
		var parts []string
		for _, st := range sts {
			parts = append(parts, fmt.Sprintf("status %d ×%d", st, bare[st]))
		}
		fmt.Fprintf(w, "\n# Without a message, nothing to match on: %s.\n", strings.Join(parts, ", "))
	}
}
