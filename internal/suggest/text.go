package suggest

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/redact"
)

// A message as a suggestion reads it: literal words and punctuation, and
// masked parts that vary from one answer to the next (quoted values, URLs,
// UUIDs, hex strings, ids, numbers).

type partKind uint8

const (
	lit      partKind = iota // literal text, no blanks
	blank                    // a run of blanks
	quoted                   // a quoted value, its content masked
	number                   // 1, 4096, 1.5, 1,000
	uuid                     // 8-4-4-4-12 hex
	hexRun                   // 8+ hex digits, letters and digits both
	ident                    // a token of 5+ letters, digits, _ or - with a digit and a letter
	scrubbed                 // the scrubber's [redacted], [address] or [provider NAME] and what follows it up to a blank
	link                     // an http(s) URL
)

type part struct {
	kind   partKind
	text   string // the text as written; quoted: the quote character only
	closed bool   // quoted: the value ends with its quote
}

// Text is a message split into parts; the zero Text is an empty message.
type Text []part

var (
	uuidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	tokenRe = regexp.MustCompile(`^[0-9A-Za-z_][0-9A-Za-z_-]*`)
	numRe   = regexp.MustCompile(`^[0-9]+(?:[.,][0-9]+)*`)
	urlRe   = regexp.MustCompile(`^https?://[^\s"'<>]+`)
	// What internal/redact put where the upstream echoed a secret or an
	// address: the log is scrubbed, the rule matches the raw answer.
	scrubRe = regexp.MustCompile(`^(?:` + redact.SecretPattern + `|` + redact.PlacePattern + `)[^\s"'<>]*`)
)

// Parse splits a message (quoted values masked first) into parts. Bytes
// that are not UTF-8 read as U+FFFD, as Go's regular expressions read them
// in the body.
func Parse(msg string) Text {
	s := decision.MaskQuoted(strings.ToValidUTF8(msg, "\uFFFD"))
	var t Text
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			j := i
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
				j++
			}
			t = append(t, part{kind: blank})
			i = j
			continue
		case (c == '\'' || c == '"' || c == '`') && strings.HasPrefix(s[i+1:], decision.Masked):
			j := i + 1 + len(decision.Masked)
			closed := j < len(s) && s[j] == c
			if closed {
				j++
			}
			t = append(t, part{kind: quoted, text: string(c), closed: closed})
			i = j
			continue
		}
		if m := urlRe.FindString(s[i:]); m != "" && (i == 0 || !wordAt(s, i-1)) {
			t = append(t, part{kind: link, text: m})
			i += len(m)
			continue
		}
		if m := scrubRe.FindString(s[i:]); m != "" {
			t = append(t, part{kind: scrubbed, text: m})
			i += len(m)
			continue
		}
		if m := uuidRe.FindString(s[i:]); m != "" && !wordAt(s, i+len(m)) {
			t = append(t, part{kind: uuid, text: m})
			i += len(m)
			continue
		}
		if n := numRe.FindString(s[i:]); n != "" && !alnumAt(s, i+len(n)) {
			t = append(t, part{kind: number, text: n}) // 4096, 1.5, 1,000; "0.0-2.0" is two
			i += len(n)
			continue
		}
		if tok := tokenRe.FindString(s[i:]); tok != "" {
			t = append(t, tokenPart(tok))
			i += len(tok)
			continue
		}
		j := i
		if c >= utf8.RuneSelf { // a run of non-ASCII characters is one part
			for j < len(s) && s[j] >= utf8.RuneSelf {
				j++
			}
		} else {
			_, w := utf8.DecodeRuneInString(s[i:])
			j += w
		}
		t = append(t, part{kind: lit, text: s[i:j]})
		i = j
	}
	return t
}

// alnumAt reports whether s[i] is a letter, a digit or _.
func alnumAt(s string, i int) bool {
	return i < len(s) && (s[i] == '_' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
}

// wordAt reports whether s[i] continues a token.
func wordAt(s string, i int) bool {
	return i < len(s) && (s[i] == '_' || s[i] == '-' || s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
}

// tokenPart classifies a run of letters, digits, _ and -.
func tokenPart(tok string) part {
	digit, letter, hex := false, false, true
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
			if !(c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				hex = false
			}
		default:
			hex = false
		}
	}
	switch {
	case hex && digit && letter && len(tok) >= 8:
		return part{kind: hexRun, text: tok}
	case digit && letter && len(tok) >= 5:
		return part{kind: ident, text: tok}
	}
	return part{kind: lit, text: tok}
}

// Literal reports whether the message has a word to match on: three
// letters, digits or _ in a row, or two characters of a script other than
// Latin (余额). A message without one gets no expression: a rule made of
// "No" or "!!!" would take nearly every answer.
func (t Text) Literal() bool {
	for _, p := range t {
		switch {
		case p.kind != lit:
		case p.text[0] >= utf8.RuneSelf:
			if utf8.RuneCountInString(p.text) >= 2 {
				return true
			}
		case len(tokenRe.FindString(p.text)) >= 3:
			return true
		}
	}
	return false
}

// Key is the group key: the text with masked parts as placeholders, lower
// case. Two messages with one Key are matched by either's Regexp.
func (t Text) Key() string {
	var b strings.Builder
	for _, p := range t {
		switch p.kind {
		case lit:
			b.WriteString(strings.ToLower(p.text))
		case blank:
			b.WriteByte(' ')
		case quoted:
			b.WriteString(p.text + "<q>")
			if p.closed {
				b.WriteString(p.text)
			}
		default:
			fmt.Fprintf(&b, "<%d>", p.kind)
		}
	}
	return b.String()
}

// Display is the message as a person reads a group of them: what varies
// shown as <q> (a quoted value), <url>, <id> (ids, UUIDs, hex strings and
// what the scrubber hid) and <n> (a number), blanks folded to one space.
func (t Text) Display() string {
	var b strings.Builder
	for _, p := range t {
		switch p.kind {
		case lit:
			b.WriteString(p.text)
		case blank:
			b.WriteByte(' ')
		case quoted:
			b.WriteString("<q>")
		case link:
			b.WriteString("<url>")
		case number:
			b.WriteString("<n>")
		case uuid, hexRun, ident, scrubbed:
			b.WriteString("<id>")
		}
	}
	return strings.TrimSpace(b.String())
}

// maxPattern bounds a suggested expression: past it, the rest of the
// message is left out (the rule matches what comes first).
const maxPattern = 200

// gapPattern stands for a blank or a masked part between two literal runs:
// anything but a double quote, so the match stays inside one JSON string
// (none of what it stands for is a quote; a quoted value is written out).
// quotedPattern is a quoted value's content, which may hold anything,
// escaped quotes included.
const (
	gapPattern    = `[^"]*?`
	quotedPattern = `(?:[^"\\]|\\.)*?`
)

// Regexp is a case-insensitive Go regular expression that matches the
// message wherever it stands in a raw body, and the messages of its group
// (Key): its literal runs in order, joined by gapPattern where a blank or a
// masked part stood, a quoted value as its quotes around anything. Inside a
// JSON string a blank may be an escape (\n), a quote or a backslash is
// escaped, "/" may be, and "<", ">", "&", control and non-ASCII characters
// may be \u escapes; the literal runs allow for that, and every character
// YAML cannot hold is written as an escape. "" for a message with no word
// to match on (Literal).
func (t Text) Regexp() string {
	if !t.Literal() {
		return ""
	}
	var b strings.Builder
	b.WriteString("(?i)")
	gap := false // a blank or masked part since the last literal run
	for _, p := range t {
		if b.Len() >= maxPattern {
			break
		}
		switch p.kind {
		case lit:
		case quoted:
			if gap && b.Len() > len("(?i)") {
				b.WriteString(gapPattern)
			}
			q := charPattern(rune(p.text[0]))
			b.WriteString(q + quotedPattern)
			if p.closed {
				b.WriteString(q)
			}
			gap = false
			continue
		default:
			gap = true
			continue
		}
		if gap && b.Len() > len("(?i)") {
			b.WriteString(gapPattern)
		}
		gap = false
		if p.text[0] >= utf8.RuneSelf {
			b.WriteString(nonASCII(p.text))
			continue
		}
		for _, r := range p.text {
			b.WriteString(charPattern(r))
		}
	}
	return b.String()
}

// charPattern matches one literal character of a message in a raw body.
func charPattern(r rune) string {
	switch {
	case r == '"':
		return `\\?"`
	case r == '\\':
		return `\\\\?`
	case r == '/':
		return `\\?/`
	case r == '<' || r == '>' || r == '&':
		return fmt.Sprintf(`(?:%s|\\u%04x)`, regexp.QuoteMeta(string(r)), r)
	case r < 0x20 || r == 0x7f: // a control character: JSON escapes it, as \u00XX or a short escape
		return fmt.Sprintf(`(?:\x{%x}|\\u%04x|\\[bfnrt])`, r, r)
	}
	return regexp.QuoteMeta(string(r))
}

// nonASCII matches a run of non-ASCII characters as is or as the \u escapes
// of an upstream that writes ASCII-only JSON (Python's default).
func nonASCII(run string) string {
	var esc strings.Builder
	for _, r := range run {
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&esc, `\\u%04x\\u%04x`, hi, lo)
			continue
		}
		fmt.Fprintf(&esc, `\\u%04x`, r)
	}
	var raw strings.Builder
	for _, r := range run {
		if printable(r) {
			raw.WriteString(regexp.QuoteMeta(string(r)))
		} else {
			fmt.Fprintf(&raw, `\x{%x}`, r)
		}
	}
	return `(?:` + raw.String() + `|` + esc.String() + `)`
}

// printable reports whether YAML may hold r as written (it refuses the C1
// controls and a byte-order mark inside a scalar) and a person can read it.
func printable(r rune) bool {
	return unicode.IsPrint(r) && r != '\uFEFF'
}
