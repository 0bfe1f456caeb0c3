package classify

import "unicode/utf8"

// Python programs print an upstream's answer as the repr of the dict they
// decoded it into: the openai SDK's "Error code: 400 - {'error':
// {'message': …, 'param': None, 'code': 'context_length_exceeded'}}", which
// relays built on it (LiteLLM, agent frameworks' servers) send on as their
// own message. The repr is not JSON, so its codes, types and params were
// read as words only. reprJSON writes it as the JSON it was decoded from,
// for quotedAnswer to read as any quoted answer (docs/design.md, "Quoted
// answers").

// maxReprDepth bounds the nesting reprJSON follows: an answer nests a few
// levels; a hostile body is refused, not followed.
const maxReprDepth = 32

// reprJSON appends to dst, as JSON, the Python repr of a dict that d opens
// with ({'error': {'message': 'x', 'param': None}}), and returns it with
// the length of d it read; ok is false when d does not open with one, or
// when the JSON would not fit the MaxBody bytes of a text buffer. What
// follows the dict is the relay's, and is not read.
func reprJSON(dst, d []byte) (out []byte, n int, ok bool) {
	if len(d) < 2 || d[0] != '{' || d[1] != '\'' && d[1] != '"' {
		return nil, 0, false
	}
	p := reprParser{d: d, out: dst}
	if !p.value(0) || len(p.out) > MaxBody {
		return nil, 0, false
	}
	return p.out, p.i, true
}

// reprParser reads one Python literal of d from i, writing its JSON to out.
type reprParser struct {
	d   []byte
	i   int
	out []byte
}

func (p *reprParser) blanks() {
	for p.i < len(p.d) && (p.d[p.i] == ' ' || p.d[p.i] == '\n' || p.d[p.i] == '\r' || p.d[p.i] == '\t') {
		p.i++
	}
}

// value reads a dict, list, tuple, string, number, True, False or None.
func (p *reprParser) value(depth int) bool {
	if depth > maxReprDepth || len(p.out) > MaxBody {
		return false
	}
	p.blanks()
	if p.i >= len(p.d) {
		return false
	}
	switch c := p.d[p.i]; {
	case c == '{':
		return p.items(depth, '}', true)
	case c == '[':
		return p.items(depth, ']', false)
	case c == '(':
		return p.items(depth, ')', false)
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		j := p.i
		for j < len(p.d) && (p.d[j] >= '0' && p.d[j] <= '9' || p.d[j] == '-' || p.d[j] == '+' || p.d[j] == '.' || p.d[j] == 'e' || p.d[j] == 'E') {
			j++
		}
		if !jsonNumber(p.d[p.i:j]) {
			return false
		}
		p.out = append(p.out, p.d[p.i:j]...)
		p.i = j
		return true
	}
	for _, w := range [...]struct{ py, js string }{{"True", "true"}, {"False", "false"}, {"None", "null"}} {
		if len(p.d)-p.i >= len(w.py) && string(p.d[p.i:p.i+len(w.py)]) == w.py {
			p.out = append(p.out, w.js...)
			p.i += len(w.py)
			return true
		}
	}
	return false
}

// items reads a dict (keys are strings), a list or a tuple, from its
// opening to its closing byte, as a JSON object or array.
func (p *reprParser) items(depth int, close byte, dict bool) bool {
	p.i++
	if dict {
		p.out = append(p.out, '{')
	} else {
		p.out = append(p.out, '[')
	}
	for first := true; ; first = false {
		p.blanks()
		if p.i < len(p.d) && p.d[p.i] == close {
			break
		}
		if !first {
			if p.i >= len(p.d) || p.d[p.i] != ',' {
				return false
			}
			p.i++
			p.blanks()
			if p.i < len(p.d) && p.d[p.i] == close { // a tuple's (x,)
				break
			}
			p.out = append(p.out, ',')
		}
		if dict {
			if p.i >= len(p.d) || p.d[p.i] != '\'' && p.d[p.i] != '"' || !p.str() {
				return false
			}
			p.blanks()
			if p.i >= len(p.d) || p.d[p.i] != ':' {
				return false
			}
			p.i++
			p.out = append(p.out, ':')
		}
		if !p.value(depth + 1) {
			return false
		}
	}
	p.i++
	if dict {
		p.out = append(p.out, '}')
	} else {
		p.out = append(p.out, ']')
	}
	return true
}

// str reads a Python string literal (its escapes \\ \' \" \n \r \t \xNN
// \uNNNN \UNNNNNNNN) as a JSON string.
func (p *reprParser) str() bool {
	q := p.d[p.i]
	p.i++
	p.out = append(p.out, '"')
	for p.i < len(p.d) {
		c := p.d[p.i]
		switch {
		case c == q:
			p.i++
			p.out = append(p.out, '"')
			return true
		case c == '\\' && p.i+1 < len(p.d):
			r, w := pyEscape(p.d[p.i:])
			p.i += w
			p.rune(r)
		default:
			r, w := utf8.DecodeRune(p.d[p.i:])
			p.i += w
			p.rune(r)
		}
	}
	return false
}

// rune writes r inside a JSON string.
func (p *reprParser) rune(r rune) {
	switch {
	case r == '"' || r == '\\':
		p.out = append(p.out, '\\', byte(r))
	case r == '\n':
		p.out = append(p.out, '\\', 'n')
	case r == '\r':
		p.out = append(p.out, '\\', 'r')
	case r == '\t':
		p.out = append(p.out, '\\', 't')
	case r < 0x20:
		p.out = append(p.out, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&15])
	default:
		p.out = utf8.AppendRune(p.out, r)
	}
}

const hexDigits = "0123456789abcdef"

// pyEscape decodes the escape b opens with and returns its length; an
// escape it does not know stands for its backslash alone, as in Python.
func pyEscape(b []byte) (rune, int) {
	switch b[1] {
	case '\\', '\'', '"':
		return rune(b[1]), 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'x':
		return pyHex(b, 2)
	case 'u':
		return pyHex(b, 4)
	case 'U':
		return pyHex(b, 8)
	}
	return '\\', 1
}

// pyHex decodes the n hex digits after b's \x, \u or \U.
func pyHex(b []byte, n int) (rune, int) {
	if len(b) < 2+n {
		return '\\', 1
	}
	var r rune
	for _, c := range b[2 : 2+n] {
		h := hexByte('0', c) // the digit alone: 0 before it
		if h < 0 {
			return '\\', 1
		}
		r = r<<4 | rune(h)
	}
	if !utf8.ValidRune(r) {
		return utf8.RuneError, 2 + n
	}
	return r, 2 + n
}

// jsonNumber reports whether b is a number as JSON writes one (as Python
// prints an int or a float but inf and nan): -?int(.digits)?([eE][+-]?digits)?
// with no leading zero.
func jsonNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	start := i
	if n := digits(); n == 0 || n > 1 && b[start] == '0' {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(b)
}
