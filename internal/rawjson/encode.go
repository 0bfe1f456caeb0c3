package rawjson

import (
	"encoding/json"
	"unicode/utf8"
)

// Marshal is json.Marshal without its HTML escaping: '<', '>' and '&' are
// written as they are, where json.Marshal writes each as a six-byte \u003c.
// Every body Detour builds for an upstream is built with it: a prompt of
// markup or code (a pasted page, a diff, generics) would otherwise grow up
// to six times in translation, past what the in-flight allowance reserves
// for it (docs/config.md, max_inflight_body_bytes; reviews 32i and 36a).
// The receiver decodes the same strings either way. It allocates what
// json.Marshal does: the encoder's buffer, then one copy of its size.
func Marshal(v any) ([]byte, error) {
	var w exact
	e := json.NewEncoder(&w)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return w.b[:len(w.b)-1], nil // Encode's newline
}

// exact keeps what is written to it, one allocation of its size for the
// one Write an Encoder makes (a bytes.Buffer's growth costs more).
type exact struct{ b []byte }

func (w *exact) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string as encoding/json writes it, with its
// default HTML escaping: <, > and & as \u003c, \u003e, \u0026; U+2028 and
// U+2029 escaped; invalid UTF-8 as U+FFFD. Byte for byte json.Marshal(s),
// without reflection or a frame a level (the doors' stream events,
// decision records).
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// StringLen is len(AppendString(nil, s)) without the two quotes: the bytes
// s takes once escaped, up to six times its own length (each <, > and &,
// each control character and each byte of invalid UTF-8 is six bytes).
// A caller bounding what it will write says it so (hostile 53b: a stream of
// '<' held 16 MiB of text that its events wrote as 96).
func StringLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&':
				n++
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			default:
				n += 6
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}
