package redact

import (
	"slices"
	"strings"
)

// Window is the length of the shortest secret fragment that is scrubbed. A
// secret shorter than Window is not scrubbed at all: it cannot be told
// apart from ordinary words ("none", "ollama").
const Window = 8

// windows indexes every Window-byte substring of the secrets. A message is
// checked by sliding over it once: each position costs a shift, a multiply
// and a bit test; only a bit hit (about one position in a hundred for a
// few hundred indexed windows) costs a map lookup.
type windows struct {
	set     map[uint64]struct{}
	bloom   [1 << 10]uint64 // 65,536 bits
	secrets []string        // those indexed, for revealed
}

func (ws *windows) add(secret string) {
	if len(secret) < Window {
		return
	}
	if ws.set == nil {
		ws.set = map[uint64]struct{}{}
	}
	ws.secrets = append(ws.secrets, secret)
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

// ClientStretch is the shortest stretch of one secret that is scrubbed
// from text a client reads (the whole secret, where it is shorter), unless
// the stretch ends the secret. A shorter fragment is left as it is there:
// the upstream may have written it because the client steered it (a
// model's output quoted in an error, its pieces the client's), and
// scrubbing it would answer the client's guess at the next byte of a key
// after its public prefix (sk-proj-, sk-ant-api03-: at most 13 bytes;
// Bedrock's long-term API keys, 23: "ABSKQmVkcm9ja0FQSUtleS1"). A guess at
// 9 bytes or more at once, or at a key's last 8, is no guess one can make.
const ClientStretch = 32

// revealed returns the stretches of s, a run of secret windows, that a
// client may not read (Reveals), merged and in order: each ClientStretch
// bytes of one secret in a row (all of a shorter one), and each of a
// secret's last Window bytes. A byte beside such a stretch is not taken
// in unless it is of the same secret, in its place.
func (ws *windows) revealed(s string) []span {
	var out []span
	for _, sec := range ws.secrets {
		need := min(ClientStretch, len(sec))
		tail := sec[len(sec)-Window:]
		for i := 0; i < len(s); i++ {
			if i+need <= len(s) && strings.Contains(sec, s[i:i+need]) {
				out = append(out, span{i, i + need})
			}
			if strings.HasPrefix(s[i:], tail) {
				out = append(out, span{i, i + Window})
			}
		}
	}
	slices.SortFunc(out, func(a, b span) int { return a.from - b.from })
	merged := out[:0]
	for _, x := range out {
		if n := len(merged); n > 0 && x.from <= merged[n-1].to {
			merged[n-1].to = max(merged[n-1].to, x.to)
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// Reveals returns what of secret text holds that text a client reads must
// not, "" when nothing: the first stretch revealed would scrub — ClientStretch
// bytes of it in a row (all of it, when shorter), or its last Window bytes.
// It is the rule ForClient applies, for callers that check what left.
func Reveals(text, secret string) string {
	if len(secret) < Window {
		return ""
	}
	ws := windows{secrets: []string{secret}}
	if sp := ws.revealed(text); len(sp) > 0 {
		return text[sp[0].from:sp[0].to]
	}
	return ""
}
