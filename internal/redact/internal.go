package redact

import (
	"net/netip"
	"strings"
)

// internalEdits replaces, in text for a client, the authority (host and
// port) of every http:// or https:// URL whose host is internal with
// "[address]": an IP literal, a name of one label (a container's "vllm"),
// or a name under a suffix private networks use. An upstream relay's own
// error text ("Post \"http://10.20.30.40:8000/v1/chat/completions\": dial
// tcp …") would otherwise tell a client where the operator's servers are;
// a public host a provider links to (its console, its docs) stays.
func internalEdits(msg, lower string, eds *edits) {
	for _, scheme := range [...]string{"http://", "https://"} {
		for at := 0; ; {
			i := strings.Index(lower[at:], scheme)
			if i < 0 {
				break
			}
			from := at + i + len(scheme)
			to := from
			for to < len(msg) && !urlEnd(msg[to]) && msg[to] != '/' && msg[to] != '?' && msg[to] != '#' {
				to++
			}
			if to > from && internalHost(lower[from:to]) {
				eds.add(from, to, Address)
			}
			at = to
		}
	}
}

// internalSuffixes end the names of hosts on private networks.
var internalSuffixes = [...]string{".local", ".internal", ".lan", ".home", ".corp", ".svc", ".cluster.local", ".localhost"}

// internalHost reports whether authority (host[:port], lower case, an IPv6
// host in brackets) names a host an operator would not publish.
func internalHost(authority string) bool {
	host := authority
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(host, "[") {
		if end := strings.IndexByte(host, ']'); end > 0 {
			host = host[1:end]
		}
	} else if c := strings.LastIndexByte(host, ':'); c >= 0 {
		host = host[:c]
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return true
	}
	if host == "" || !strings.Contains(host, ".") {
		return host != ""
	}
	for _, s := range internalSuffixes {
		if strings.HasSuffix(host, s) {
			return true
		}
	}
	return false
}
