package main

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/redact"
)

// A message as --suggest reads it: literal words and punctuation, and masked
// parts that vary from one answer to the next (quoted values, UUIDs, hex
// strings, ids, numbers).

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
)

type part struct {
	kind   partKind
	text   string // lit: the text; quoted: the quote character
	closed bool   // quoted: the value ends with its quote
}

type msgText []part

var (
	uuidRe  = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
	tokenRe = regexp.MustCompile(`^[0-9A-Za-z_][0-9A-Za-z_-]*`)
	numRe   = regexp.MustCompile(`^[0-9]+(?:[.,][0-9]+)*`)
	// What internal/redact put where the upstream echoed a secret or an
	// address: the log is scrubbed, the rule matches the raw answer.
	scrubRe = regexp.MustCompile(`^(?:` + redact.SecretPattern + `|` + redact.PlacePattern + `)[^\s"'<>]*`)
)

// parseText splits a message (quoted values masked first) into parts.
func parseText(msg string) msgText {
	s := decision.MaskQuoted(msg)
	var t msgText
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
		if m := scrubRe.FindString(s[i:]); m != "" {
			t = append(t, part{kind: scrubbed})
			i += len(m)
			continue
		}
		if m := uuidRe.FindString(s[i:]); m != "" && !wordAt(s, i+len(m)) {
			t = append(t, part{kind: uuid})
			i += len(m)
			continue
		}
		if n := numRe.FindString(s[i:]); n != "" && !alnumAt(s, i+len(n)) {
			t = append(t, part{kind: number}) // 4096, 1.5, 1,000; "0.0-2.0" is two
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
		return part{kind: hexRun}
	case digit && letter && len(tok) >= 5:
		return part{kind: ident}
	}
	return part{kind: lit, text: tok}
}

// literal reports whether the message has a word to match on.
func (t msgText) literal() bool {
	for _, p := range t {
		if p.kind == lit && tokenRe.MatchString(p.text) {
			return true
		}
	}
	return false
}

// key is the group key: the text with masked parts as placeholders, lower case.
func (t msgText) key() string {
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

// regexp is a case-insensitive Go regular expression that matches the
// message wherever it stands in a raw body: inside a JSON string a blank may
// be an escape (\n), a quote or a backslash is escaped, "/" may be, and
// "<", ">", "&" and non-ASCII characters may be \u escapes.
func (t msgText) regexp() string {
	var b strings.Builder
	b.WriteString("(?i)")
	for _, p := range t {
		switch p.kind {
		case lit:
			if p.text[0] >= utf8.RuneSelf {
				b.WriteString(nonASCII(p.text))
				continue
			}
			for _, r := range p.text {
				b.WriteString(charPattern(r))
			}
		case blank:
			b.WriteString(`(?:\s|\\[nrt])+`)
		case quoted:
			q := charPattern(rune(p.text[0]))
			b.WriteString(q + `.*?`)
			if p.closed {
				b.WriteString(q)
			}
		case number:
			b.WriteString(`[0-9][0-9.,]*`)
		case uuid:
			b.WriteString(`[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}`)
		case hexRun:
			b.WriteString(`[0-9a-f]+`)
		case ident:
			b.WriteString(`[\w-]+`)
		case scrubbed:
			b.WriteString(`[^\s"]+`)
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
	return `(?:` + regexp.QuoteMeta(run) + `|` + esc.String() + `)`
}

// classWords is the keyword heuristic of --suggest: the first class with a
// word found in the message (lower case, quoted values masked) is
// suggested. Money before keys (an "invalid" balance is still money), keys
// before limits, and generic bad-input words last.
var classWords = []struct {
	class classify.Class
	words []string
}{
	{classify.Quota, []string{"balance", "credit", "billing", "payment", "paid plan", "funds", "quota", "spend", "budget",
		"arrears", "top up", "recharge", "subscription", "欠费", "余额", "额度", "充值", "账单"}},
	{classify.Auth, []string{"api key", "apikey", "api-key", "token is invalid", "invalid token", "unauthorized",
		"unauthenticated", "authentication", "credential", "signature", "鉴权", "认证", "密钥"}},
	{classify.RateLimited, []string{"rate limit", "too many requests", "throttl", "slow down", "per minute",
		"concurrency", "concurrent", "频率", "限流", "请求过多"}},
	{classify.ContextLength, []string{"context", "too long", "token limit", "maximum length", "上下文", "超长"}},
	{classify.Overflow, []string{"too large", "payload", "body size"}},
	{classify.Unavailable, []string{"not found", "does not exist", "no such model", "not available", "decommission",
		"deprecated", "retired", "offline", "模型不存在", "下线"}},
	{classify.Forbidden, []string{"permission", "forbidden", "not allowed", "access denied", "region", "country", "权限"}},
	{classify.Refusal, []string{"safety", "content policy", "moderation", "sensitive", "inappropriate", "harmful",
		"敏感", "违规", "审核"}},
	{classify.Timeout, []string{"timeout", "timed out", "deadline", "超时"}},
	{classify.ServerError, []string{"internal", "overloaded", "busy", "try again later", "unavailable", "繁忙", "服务异常"}},
	{classify.BadRequest, []string{"invalid", "must be", "required", "missing", "unsupported", "parameter",
		"format", "schema", "json", "参数"}},
}

// guessClass suggests a class for a message, and the keyword that decided;
// unknown and "" when none matched.
func guessClass(msg string) (classify.Class, string) {
	m := strings.ToLower(decision.MaskQuoted(msg))
	for _, cw := range classWords {
		for _, w := range cw.words {
			if strings.Contains(m, w) {
				return cw.class, w
			}
		}
	}
	return classify.Unknown, ""
}
