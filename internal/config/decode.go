package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest configuration file Load reads (4 MiB, about
// 30,000 client keys): parsing takes some 70 bytes of memory per byte of
// YAML, and a reload parses in the process serving traffic, so a mistaken
// path (a log, a disk image, /dev/zero) must not be read whole (review 38c).
const MaxFileBytes = 4 << 20

// Load reads and parses the configuration file at path, reading "${VAR}"
// from the process environment. A file larger than MaxFileBytes is refused
// unparsed.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, Errors{&Error{File: path, Msg: fmt.Sprintf(
			"larger than %d MiB, the most a configuration file may be: is this the right file?", MaxFileBytes>>20)}}
	}
	return Parse(path, data, os.LookupEnv)
}

// Parse decodes and validates data, naming it name in errors and reading
// "${VAR}" through lookup (nil: every variable is unset). The error, if any,
// is an Errors value listing every problem found, sorted by line.
func Parse(name string, data []byte, lookup func(string) (string, bool)) (*Config, error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	d := &decoder{file: name, lookup: lookup}
	cfg := defaults(name)
	root, ok := d.parse(data)
	if ok {
		raw := d.decodeRoot(root, cfg)
		d.validate(cfg, raw)
	}
	if len(d.errs) > 0 {
		d.errs.sort()
		return nil, d.errs
	}
	resolveTables(cfg)
	return cfg, nil
}

// decoder walks a yaml.Node tree, collecting errors with their lines.
type decoder struct {
	file   string
	lookup func(string) (string, bool)
	errs   Errors
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	e := &Error{File: d.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserErrors are the messages of yaml's parser (as opposed to its scanner).
var parserErrors = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"did not find expected '-' indicator", "did not find expected <document start>",
	"did not find expected <stream-start>", "did not find expected key",
	"did not find expected node content", "found duplicate %TAG directive",
	"found duplicate %YAML directive", "found incompatible YAML document",
	"found undefined tag handle",
}

// parse parses data as exactly one YAML document and returns its top node;
// an empty document yields an empty mapping.
func (d *decoder) parse(data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}, true
		}
		d.syntaxError(err, data)
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.errorf(&extra, "a second YAML document: the file must hold exactly one")
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		d.syntaxError(err, data)
		return nil, false
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if isNull(root) {
		return &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}, true
	}
	return root, true
}

func (d *decoder) syntaxError(err error, data []byte) {
	lines := bytes.Count(data, []byte("\n")) + 1
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		// yaml reports a scanner error's line 1-based but a parser error's
		// 0-based (at the start of the construct it was parsing).
		if contains(parserErrors, m[2]) {
			line = min(line+1, lines)
		}
		if m[2] == "found a tab character that violates indentation" {
			// yaml marks where the value before the tab began, often the
			// line above the tab (operator review 68e): name the line that
			// holds it.
			for l := line; l <= lines; l++ {
				if tabIndented(data, l) {
					line = l
					break
				}
			}
		}
		msg := "YAML syntax: " + m[2]
		if m[2] == "found character that cannot start any token" && tabIndented(data, line) {
			msg += " (a tab: YAML indents with spaces only)"
		}
		d.errs = append(d.errs, &Error{File: d.file, Line: line, Msg: msg})
		return
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	e := &Error{File: d.file, Msg: "YAML syntax: " + msg}
	// yaml omits "line N" when the problem is on the first line (its
	// 0-based mark is 0); anchor, alias and depth errors carry no mark at all.
	if !strings.Contains(msg, "anchor") && !strings.Contains(msg, "alias") && !strings.Contains(msg, "depth") {
		e.Line = 1
	}
	if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		e.Line = aliasLine(data, m[1]) // a mistyped alias: where it is written (review 32f)
		e.Msg = unknownAnchorMsg(m[1])
	}
	if contains(readerErrors, msg) {
		// The reader's errors carry no mark at all: find the byte.
		e.Line, e.Msg = badByte(data)
	}
	d.errs = append(d.errs, e)
}

// tabIndented reports whether line (1-based) of data is indented with a tab.
func tabIndented(data []byte, line int) bool {
	lines := bytes.Split(data, []byte("\n"))
	if line < 1 || line > len(lines) {
		return false
	}
	l := lines[line-1]
	indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
	return bytes.IndexByte(indent, '\t') >= 0
}

// unknownAnchorMsg reports an alias naming no anchor. Unquoted, a value
// that begins with '*' is an alias: a password or key that does is read as
// one, so the name is quoted only when it is a plain name (review 38c).
func unknownAnchorMsg(name string) string {
	const quote = "a value that begins with '*' must be quoted"
	if PlainName(name) {
		return fmt.Sprintf("YAML syntax: unknown anchor %q referenced by *%s (%s)", name, name, quote)
	}
	return fmt.Sprintf("YAML syntax: a value begins with '*', which makes it an alias, and no anchor has its name "+
		"(of %d characters, not shown): %s", len(name), quote)
}

// readerErrors are the messages of yaml's reader: a byte that is not UTF-8,
// or a character YAML does not allow.
var readerErrors = []string{
	"invalid leading UTF-8 octet", "invalid trailing UTF-8 octet", "incomplete UTF-8 octet sequence",
	"invalid length of a UTF-8 sequence", "invalid Unicode character", "control characters are not allowed",
}

// badByte finds the first byte of data yaml's reader refuses (not UTF-8,
// or a character outside YAML's printable set) and says where and what it
// is, never the text around it (it may be a key). A file yaml read as
// UTF-16 (its byte order mark) is not searched: the error stays at line 1.
func badByte(data []byte) (line int, msg string) {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return 1, "YAML syntax: the file is UTF-16 with a character it may not hold: save it as UTF-8"
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		bad := r == utf8.RuneError && size <= 1
		if !bad && yamlPrintable(r) {
			i += size
			continue
		}
		line := bytes.Count(data[:i], []byte("\n")) + 1
		col := utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i]) + 1
		if bad {
			return line, fmt.Sprintf("YAML syntax: a byte that is not UTF-8 (0x%02X) at column %d: the file must be UTF-8 text", data[i], col)
		}
		return line, fmt.Sprintf("YAML syntax: a control character (U+%04X) at column %d is not allowed", r, col)
	}
	return 1, "YAML syntax: a byte that is not UTF-8 text"
}

// yamlPrintable reports whether YAML allows r in a file (its c-printable set).
func yamlPrintable(r rune) bool {
	switch {
	case r == 0x09, r == 0x0A, r == 0x0D, r >= 0x20 && r <= 0x7E, r == 0x85:
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD, r >= 0x10000 && r <= 0x10FFFF:
	default:
		return false
	}
	return true
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '([^']*)' referenced$`)

// aliasLine is the line of the first alias "*name" in data, written where
// an alias may stand (after a blank, a flow indicator or a "-", and ended
// by one), 0 for none.
func aliasLine(data []byte, name string) int {
	pat := []byte("*" + name)
	for off := 0; ; {
		k := bytes.Index(data[off:], pat)
		if k < 0 {
			return 0
		}
		k += off
		off = k + 1
		if k > 0 && !bytes.ContainsRune([]byte(" \t\n[{,:-"), rune(data[k-1])) {
			continue
		}
		if e := k + len(pat); e < len(data) && !bytes.ContainsRune([]byte(" \t\r\n]},"), rune(data[e])) {
			continue
		}
		return bytes.Count(data[:k], []byte("\n")) + 1
	}
}

// deref is the node an alias stands for, placed where the alias is
// written: an error about it names the setting the alias feeds, at its
// line. The anchored node's Anchor stays set, so its value is never echoed
// (scalar): an anchor on a key, aliased into another setting, is still the
// key (review 38c).
func deref(n *yaml.Node) *yaml.Node {
	at := n
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n == at || n == nil {
		return n
	}
	c := *n
	c.Line, c.Column = at.Line, at.Column
	return &c
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	}
	return "something else"
}

// fields is one YAML mapping, its keys checked against the known ones.
type fields struct {
	d    *decoder
	node *yaml.Node // the mapping (for "missing key" errors)
	what string     // e.g. "provider", for messages
	vals map[string]*yaml.Node
	keys map[string]*yaml.Node
}

// mapping checks that n is a mapping with only known, unique, string keys.
// ok is false (and an error recorded) when n is not a mapping.
// misplaced are keys written in the wrong mapping often enough to say
// where they go (operator review 60: a budget written under rate).
var misplaced = map[string]string{
	"usd_per_day": "a client key's budget", "usd_per_month": "a client key's budget",
	"requests_per_minute": "a client key's rate", "tokens_per_minute": "a client key's rate",
}

func (d *decoder) mapping(n *yaml.Node, what string, known ...string) (f fields, ok bool) {
	n = deref(n)
	f = fields{d: d, node: n, what: what, vals: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping of keys to values, not %s", what, kindName(n))
		return f, false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "%s: a key must be a plain word, not %s", what, kindName(k))
			continue
		}
		if k.Value == "<<" && k.Tag == "!!merge" {
			d.errorf(k, "%s: merge keys (<<) are not supported", what)
			continue
		}
		if !contains(known, k.Value) {
			name, hint := unknownName(k.Value, false)
			if under, ok := misplaced[k.Value]; ok && hint == "" {
				hint = ": it goes under " + under
			}
			d.errorf(k, "unknown key %s in %s%s (known keys: %s)", name, what, hint, strings.Join(known, ", "))
			continue
		}
		if prev, dup := f.keys[k.Value]; dup {
			d.errorf(k, "key %q in %s is repeated (first at line %d)", k.Value, what, prev.Line)
			continue
		}
		f.keys[k.Value] = k
		f.vals[k.Value] = deref(v)
	}
	return f, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// has reports whether key was written (with a value other than null).
func (f fields) has(key string) bool {
	v, ok := f.vals[key]
	return ok && !isNull(v)
}

// require records an error for every key that is absent.
func (f fields) require(keys ...string) {
	for _, k := range keys {
		if _, ok := f.vals[k]; !ok {
			f.d.errorf(f.node, "%s is missing required key %q", f.what, k)
		}
	}
}

// value is a scalar after environment expansion.
type value struct {
	s      string
	node   *yaml.Node
	secret bool // came from the environment or is a key: never echo it
}

// show is v for an error message: quoted, or a placeholder when secret.
func (v value) show() string {
	if v.secret {
		return "(value not shown)"
	}
	return strconv.Quote(v.s)
}

// scalar expands a scalar node; ok is false (and an error recorded) if n is
// not a non-null scalar or its expansion fails.
func (d *decoder) scalar(n *yaml.Node, what string, secret bool) (value, bool) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s must be a single value, not %s", what, kindName(n))
		return value{}, false
	}
	if n.Tag == "!!null" {
		d.errorf(n, "%s has no value", what)
		return value{}, false
	}
	s, fromEnv, err := expand(n.Value, d.lookup)
	if err != nil {
		d.errorf(n, "%s: %v", what, err)
		return value{}, false
	}
	// An anchored value may be aliased anywhere, a key field included: it
	// is never echoed either (review 38c).
	return value{s: s, node: n, secret: secret || fromEnv || n.Anchor != ""}, true
}

// str returns key's value, if written and valid.
func (f fields) str(key string, secret bool) (value, bool) {
	n, ok := f.vals[key]
	if !ok {
		return value{}, false
	}
	return f.d.scalar(n, f.label(key), secret)
}

// setStr sets *dst to key's value when written; an empty value is an error
// unless allowEmpty.
func (f fields) setStr(key string, dst *string, allowEmpty bool) (value, bool) {
	v, ok := f.str(key, false)
	if !ok {
		return v, false
	}
	if v.s == "" && !allowEmpty {
		f.d.errorf(v.node, "%s must not be empty", f.label(key))
		return v, false
	}
	*dst = v.s
	return v, true
}

// setInt sets *dst to key's integer value when written and >= min.
func (f fields) setInt(key string, dst *int, min int) {
	v, ok := f.str(key, false)
	if !ok {
		return
	}
	i, err := strconv.Atoi(v.s)
	if err != nil {
		f.d.errorf(v.node, "%s must be a whole number, not %s", f.label(key), v.show())
		return
	}
	if i < min {
		f.d.errorf(v.node, "%s must be at least %d, not %d", f.label(key), min, i)
		return
	}
	*dst = i
}

// setDuration sets *dst to key's duration when written: Go syntax with a
// unit, > 0 (or >= 0 with allowZero).
func (f fields) setDuration(key string, dst *time.Duration, allowZero bool) {
	v, ok := f.str(key, false)
	if !ok {
		return
	}
	dur, err := time.ParseDuration(v.s)
	if err != nil {
		hint := `a Go duration with a unit, e.g. 500ms, 10s, 5m, 1h`
		if _, nerr := strconv.ParseFloat(v.s, 64); nerr == nil && v.s != "0" {
			hint = "a unit is required, e.g. " + v.s + "s"
			if v.secret {
				hint = "a unit is required, e.g. 10s"
			}
		}
		f.d.errorf(v.node, "%s: bad duration %s: %s", f.label(key), v.show(), hint)
		return
	}
	switch {
	case dur < 0:
		f.d.errorf(v.node, "%s must not be negative", f.label(key))
		return
	case dur == 0 && !allowZero:
		f.d.errorf(v.node, "%s must be greater than zero", f.label(key))
		return
	}
	*dst = dur
}

// seq returns key's list items; a single value is not a list. ok is false
// when the key is absent or null.
func (f fields) seq(key string) (items []*yaml.Node, node *yaml.Node, ok bool) {
	n, written := f.vals[key]
	if !written || isNull(n) {
		return nil, n, false
	}
	if n.Kind != yaml.SequenceNode {
		f.d.errorf(n, "%s must be a list, not %s", f.label(key), kindName(n))
		return nil, n, false
	}
	items = make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		items[i] = deref(c)
	}
	return items, n, true
}

// oneOf checks that v is one of allowed.
func (d *decoder) oneOf(v value, what string, allowed ...string) bool {
	if contains(allowed, v.s) {
		return true
	}
	d.errorf(v.node, "%s must be one of %s, not %s", what, strings.Join(allowed, ", "), v.show())
	return false
}

// label names key in messages: "provider timeout", or just "listen" at the top level.
func (f fields) label(key string) string {
	if f.what == topLevel {
		return key
	}
	return f.what + " " + key
}
