package redact

// Window is the length of the shortest secret fragment that is scrubbed. A
// secret shorter than Window is not scrubbed at all: it cannot be told
// apart from ordinary words ("none", "ollama").
const Window = 8

// windows indexes every Window-byte substring of the secrets. A message is
// checked by sliding over it once: each position costs a shift, a multiply
// and a bit test; only a bit hit (about one position in a hundred for a
// few hundred indexed windows) costs a map lookup.
type windows struct {
	set   map[uint64]struct{}
	bloom [1 << 10]uint64 // 65,536 bits
}

func (ws *windows) add(secret string) {
	if len(secret) < Window {
		return
	}
	if ws.set == nil {
		ws.set = map[uint64]struct{}{}
	}
	var w uint64
	for i := 0; i < len(secret); i++ {
		w = w>>8 | uint64(secret[i])<<56
		if i >= Window-1 {
			ws.set[w] = struct{}{}
			h := hash(w)
			ws.bloom[h>>6] |= 1 << (h & 63)
		}
	}
}

func hash(w uint64) uint64 { return (w * 0x9E3779B97F4A7C15) >> 48 }

// has reports whether the window w (bytes packed little-endian) is indexed.
func (ws *windows) has(w uint64) bool {
	h := hash(w)
	if ws.bloom[h>>6]&(1<<(h&63)) == 0 {
		return false
	}
	_, ok := ws.set[w]
	return ok
}

// span is a byte range [from, to) of a message.
type span struct{ from, to int }

// find returns the merged ranges of s covered by indexed windows, in order.
func (ws *windows) find(s string) []span {
	if len(ws.set) == 0 || len(s) < Window {
		return nil
	}
	var out []span
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w>>8 | uint64(s[i])<<56
		if i < Window-1 || !ws.has(w) {
			continue
		}
		from := i - (Window - 1)
		if n := len(out); n > 0 && out[n-1].to >= from {
			out[n-1].to = i + 1
			continue
		}
		out = append(out, span{from, i + 1})
	}
	return out
}

// known returns the indexed windows that occur in b: the secret fragments a
// client itself sent.
func (ws *windows) known(b []byte) map[uint64]bool {
	out := map[uint64]bool{}
	var w uint64
	for i := 0; i < len(b); i++ {
		w = w>>8 | uint64(b[i])<<56
		if i >= Window-1 && ws.has(w) {
			out[w] = true
		}
	}
	return out
}

// allKnown reports whether every window of s is in known.
func allKnown(s string, known map[uint64]bool) bool {
	var w uint64
	for i := 0; i < len(s); i++ {
		w = w>>8 | uint64(s[i])<<56
		if i >= Window-1 && !known[w] {
			return false
		}
	}
	return true
}
