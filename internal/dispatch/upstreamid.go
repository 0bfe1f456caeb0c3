package dispatch

import "net/http"

// upstreamIDHeaders are where providers put the id of an answer, the one a
// vendor's support asks for: OpenAI and most OpenAI-compatible servers
// (x-request-id), Anthropic (request-id), Azure's API Management
// (apim-request-id), AWS (x-amzn-requestid).
var upstreamIDHeaders = [...]string{"X-Request-Id", "Request-Id", "Apim-Request-Id", "X-Amzn-Requestid"}

// maxUpstreamID bounds an upstream's request id in the record.
const maxUpstreamID = 128

// upstreamRequestID is the id h gives its answer, for the decision record
// (docs/behaviour.md#decision-record): the first of upstreamIDHeaders that
// is a plain token — letters, digits and . _ : / + = - only, at most 128
// bytes. Anything else an upstream puts there is not recorded: a header is
// the upstream's to fill, and the record keeps no text it cannot vouch for.
func upstreamRequestID(h http.Header) string {
	for _, name := range upstreamIDHeaders {
		if v := h[name]; len(v) > 0 && v[0] != "" {
			if plainToken(v[0]) {
				return v[0]
			}
			return ""
		}
	}
	return ""
}

func plainToken(s string) bool {
	if len(s) > maxUpstreamID {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == ':', c == '/', c == '+', c == '=', c == '-':
		default:
			return false
		}
	}
	return true
}
