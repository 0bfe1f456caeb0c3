package redact

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// place is where one provider (or several sharing an address) lives.
type place struct {
	tag  string // "[provider NAME]"
	host string // lower case, as in a URL ("[::1]" for IPv6)
	port string // explicit, or the scheme's default
	// bare: the host alone (without its port) names the provider. True for
	// DNS names but "localhost"; an IP literal or localhost alone would also
	// match the gateway's own addresses.
	bare bool
	// ip: the host is an IP literal.
	ip bool
}

// places are the providers' places, by "host port".
type places struct {
	list  []*place
	byKey map[string]*place
}

func newPlaces(ps []Provider) places {
	out := places{byKey: map[string]*place{}}
	for _, p := range ps {
		u, err := url.Parse(p.BaseURL)
		if err != nil || u.Host == "" {
			continue
		}
		name := strings.ToLower(u.Hostname())
		host, port := name, u.Port()
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		if port == "" {
			port = defaultPort(u.Scheme)
		}
		key := host + " " + port
		if pl := out.byKey[key]; pl != nil {
			pl.tag = strings.TrimSuffix(pl.tag, "]") + "|" + p.Name + "]"
			continue
		}
		ip := net.ParseIP(name) != nil
		pl := &place{tag: "[provider " + p.Name + "]", host: host, port: port,
			bare: !ip && name != "localhost", ip: ip}
		out.byKey[key] = pl
		out.list = append(out.list, pl)
	}
	// Longer hosts first: "eu.api.example.com" before "api.example.com".
	for i := 1; i < len(out.list); i++ {
		for j := i; j > 0 && len(out.list[j].host) > len(out.list[j-1].host); j-- {
			out.list[j], out.list[j-1] = out.list[j-1], out.list[j]
		}
	}
	return out
}

func defaultPort(scheme string) string {
	if strings.EqualFold(scheme, "https") {
		return "443"
	}
	return "80"
}

// edits adds an edit for every provider URL, host:port and bare host in
// msg (lower is msg lower-cased byte for byte), and returns the one provider tag they name, or "" when they name
// none or several.
func (ps places) edits(msg, lower string, eds *edits) (tied string) {
	if len(ps.list) == 0 {
		return ""
	}
	tags := map[string]bool{}
	add := func(from, to int, pl *place) {
		eds.add(from, to, pl.tag)
		tags[pl.tag] = true
	}
	// URLs: the whole URL, path and query included.
	for off := 0; ; {
		i := strings.Index(lower[off:], "://")
		if i < 0 {
			break
		}
		i += off
		off = i + 3
		start := i
		switch {
		case i >= 5 && lower[i-5:i] == "https":
			start = i - 5
		case i >= 4 && lower[i-4:i] == "http":
			start = i - 4
		default:
			continue
		}
		end := off
		for end < len(msg) && !urlEnd(msg[end]) {
			end++
		}
		for end > off && strings.IndexByte(".,;:)", msg[end-1]) >= 0 {
			end--
		}
		host, port := authority(lower[off:end])
		if port == "" {
			port = defaultPort(lower[start:i])
		}
		if pl := ps.byKey[host+" "+port]; pl != nil {
			add(start, end, pl)
		}
	}
	// host:port, and a DNS host alone.
	for _, pl := range ps.list {
		for off := 0; ; {
			j := strings.Index(lower[off:], pl.host)
			if j < 0 {
				break
			}
			j += off
			k := j + len(pl.host)
			off = k
			if !hostEnds(lower, k) {
				continue
			}
			// host:port wherever it occurs, unless the text around it makes
			// another valid address (another host, another port): glued to
			// other text it still gives the provider away.
			if p := ":" + pl.port; strings.HasPrefix(lower[k:], p) && !otherPort(lower[k+len(p):], pl.port) && !pl.otherHost(lower[:j]) {
				add(j, k+len(p), pl)
			} else if pl.bare && (j == 0 || !hostByte(lower[j-1])) {
				add(j, k, pl)
			}
		}
	}
	if len(tags) == 1 {
		for t := range tags {
			return t
		}
	}
	return ""
}

// otherHost: before, the text ending where the host was found, extends it
// into another host — a longer DNS name, or (for an IPv4 literal) digits and
// dots making another valid IP. A bracketed IPv6 literal cannot be extended.
func (pl *place) otherHost(before string) bool {
	switch {
	case before == "" || strings.HasPrefix(pl.host, "["):
		return false
	case !pl.ip:
		return hostByte(before[len(before)-1])
	}
	i := len(before)
	for i > 0 && (digit(before[i-1]) || before[i-1] == '.') {
		i--
	}
	return i < len(before) && net.ParseIP(before[i:]+pl.host) != nil
}

// otherPort: after, the text following host:port, extends port into another
// valid port (":80" in ":8080"); digits making no port (above 65535) do not.
func otherPort(after, port string) bool {
	n := 0
	for n < len(after) && digit(after[n]) {
		n++
	}
	if n == 0 {
		return false
	}
	v, err := strconv.Atoi(port + after[:n])
	return err == nil && v <= 65535
}

// authority returns the host (lower case, brackets kept for IPv6) and port
// of the part of a URL after "scheme://".
func authority(s string) (host, port string) {
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "[") {
		if i := strings.IndexByte(s, ']'); i >= 0 {
			host, s = s[:i+1], s[i+1:]
			return host, strings.TrimPrefix(s, ":")
		}
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

func urlEnd(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`' || c == '\\'
}

func digit(c byte) bool { return '0' <= c && c <= '9' }

func alnum(c byte) bool { return digit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// hostByte: c may be part of a host name.
func hostByte(c byte) bool { return alnum(c) || c == '.' || c == '-' || c == '_' }

// hostEnds: a host name found in s ends at k (a dot ending a sentence ends it).
func hostEnds(s string, k int) bool {
	if k == len(s) {
		return true
	}
	if c := s[k]; c == '.' {
		return k+1 == len(s) || !alnum(s[k+1])
	}
	return !hostByte(s[k])
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// addrEdits replaces the addresses of Go's network errors that start at
// addrs (found by shapeEdits): with the tag of the one provider the message
// names; otherwise, in text for a client, with "[address]". Operators keep
// untied addresses: a Redis or webhook address helps them and tells a
// client nothing.
func addrEdits(msg string, addrs []int, tied string, client bool, eds *edits) {
	with := tied
	if with == "" {
		if !client {
			return
		}
		with = Address
	}
	for _, k := range addrs {
		end := k
		for end < len(msg) && msg[end] > ' ' && !(msg[end] == ':' && (end+1 == len(msg) || msg[end+1] == ' ')) {
			end++
		}
		if end > k {
			eds.add(k, end, with)
		}
	}
}
