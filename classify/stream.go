package classify

import "bytes"

// readBody fills s.f from a body: JSON (an object, Gemini's stream array, or
// NDJSON lines), or an SSE fragment whose `event: error` marks an error and
// whose `data:` lines are read as JSON (with or without a space after the
// colon, as TGI writes them). llama.cpp, once its stream has begun, writes an
// error as a line `error: {…}` with no `data:`; that line is an error event
// too. Anything else leaves s.f unparsed, and the phrases are then matched on
// the raw body.
func (s *scanner) readBody(b []byte) {
	f := &s.f
	t := trimLeft(b)
	if len(t) == 0 {
		return
	}
	if t[0] == '{' || t[0] == '[' {
		s.scanJSON(t)
		return
	}
	if !isSSE(t) {
		return
	}
	for len(t) > 0 {
		line := t
		if i := bytes.IndexByte(t, '\n'); i >= 0 {
			line, t = t[:i], t[i+1:]
		} else {
			t = nil
		}
		line = bytes.TrimRight(line, "\r")
		switch {
		case bytes.HasPrefix(line, []byte("event:")):
			if string(bytes.TrimSpace(line[len("event:"):])) == "error" {
				f.hasError = true
				f.sseError = true
			}
		case errorLine(line):
			f.hasError = true
			f.sseError = true
			s.scanJSON(trimLeft(line[len("error:"):]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := trimLeft(line[len("data:"):])
			if len(d) > 0 && (d[0] == '{' || d[0] == '[') {
				s.scanJSON(d)
			} else if f.sseError && len(d) > 0 && f.nTexts < maxTexts {
				f.addText(d) // a plain-text error event
			}
		}
	}
	if f.sseError && f.nTexts > 0 {
		f.parsed = true
	}
}

// readAnswer is readBody for an error answer (a 4xx or 5xx): a body in
// plain text, read as neither JSON nor an event stream, and no markup page
// (a Python repr, "{'error': …}", is text too), is its
// server's message, read as a JSON envelope's message is (a proxy's or a
// Go server's http.Error, a Python server's str(e)): its words, a field
// path it opens with, a retry hint, a relayed status. A page ('<') stays
// raw text, searched for phrases only.
func (s *scanner) readAnswer(b []byte) {
	s.readBody(b)
	if t := trimLeft(b); !s.f.parsed && len(t) > 0 && t[0] != '<' && !isSSE(t) {
		s.f.addText(t)
		s.f.parsed, s.f.plain = true, true
	}
}

func isSSE(t []byte) bool {
	return bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte("data:")) ||
		bytes.HasPrefix(t, []byte(":")) || bytes.HasPrefix(t, []byte("id:")) || errorLine(t)
}

// errorLine reports llama.cpp's in-stream error line, `error: {…}`. A text
// body that merely begins "error: " is not one: it stays raw text.
func errorLine(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("error:")) {
		return false
	}
	d := trimLeft(line[len("error:"):])
	return len(d) > 0 && d[0] == '{'
}

func trimLeft(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}
