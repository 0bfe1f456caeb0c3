package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// cutAnswer is an upstream that answers every request with st's status,
// headers and the first n bytes of its body, framed by frame:
// "length" declares the whole body's Content-Length and closes after n
// bytes; "chunked" sends n bytes as one chunk and closes without the last
// chunk; "stall" declares the whole length, sends n bytes and holds the
// connection until Detour leaves.
func cutAnswer(t *testing.T, st upstreamtest.Step, n int, frame string) *upstreamtest.Server {
	t.Helper()
	addr := rawTCP(t, func(c net.Conn) {
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		var head strings.Builder
		fmt.Fprintf(&head, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n", st.Status, http.StatusText(st.Status))
		for k, v := range st.Header {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
		part := st.Body[:n]
		switch frame {
		case "chunked":
			fmt.Fprintf(&head, "Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(part), part)
		default:
			fmt.Fprintf(&head, "Content-Length: %d\r\n\r\n%s", len(st.Body), part)
		}
		if _, err := io.WriteString(c, head.String()); err != nil {
			return
		}
		if frame == "stall" {
			_, _ = io.Copy(io.Discard, c) // until Detour closes the connection
		}
	})
	return &upstreamtest.Server{Server: &httptest.Server{URL: "http://" + addr}}
}

// An operator and a client rely on an error answer being judged by what it
// says — its status and headers, and as much of its body as came — even
// when the upstream, or a proxy on the way, cuts the body short or stalls
// it: a 429 with its Retry-After is a rate limit (cooled for its wait, not
// billed, the next target asked), and a 401 for an invalid key is `auth`
// (the account cools, the operator is paged). Before review 41c both were
// filed as a broken connection (`server_error`, `transport:eof`, billable
// and counted), retried at once on the same endpoint, and the client got a
// 401 or 429 status with a server_error envelope.
func TestErrorAnswerWithItsBodyCutIsJudgedByItsStatus_review41c(t *testing.T) {
	for _, tc := range []struct {
		name, corpus string
		extra        []string
		frame        string
		status       int      // the client's
		steps        []string // the record's
	}{
		{"429 length", "openai-rate-limit-reached-tpm-429", []string{"Retry-After", "20"}, "length", 200, []string{"a/p rate_limited next_target", "b/q ok done"}},
		{"429 chunked", "openai-rate-limit-reached-tpm-429", []string{"Retry-After", "20"}, "chunked", 200, []string{"a/p rate_limited next_target", "b/q ok done"}},
		{"401 length", "openai-invalid-api-key-401", nil, "length", 401, []string{"a/p auth stop"}},
		{"401 chunked", "openai-invalid-api-key-401", nil, "chunked", 401, []string{"a/p auth stop"}},
		{"401 stalled", "openai-invalid-api-key-401", nil, "stall", 401, []string{"a/p auth stop"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := corpus(t, tc.corpus, tc.extra...)
			fs := map[string]*upstreamtest.Server{"p": cutAnswer(t, st, 80, tc.frame)}
			for name, s := range fakes(t, map[string]upstreamtest.Script{"q": script(ok("model-b", "from b"))}) {
				fs[name] = s
			}
			cfg := strings.Replace(twoTargets, `api_key: `+secret+`}`, `api_key: `+secret+`, timeout: 300ms}`, 1)
			g := start(t, "retry: {max_wait: 0s}\n"+cfg, fs)

			g.post(t, "r", "").wantStatus(t, tc.status)
			d := g.recs.wait(t, 1)
			wantSteps(t, d, tc.steps...)
			a := d.Attempts[0]
			if a.Billable || !strings.HasSuffix(a.Evidence, "(its body cut short)") {
				t.Errorf("attempt %+v: want not billable, evidence naming the cut body", a)
			}
			h := g.health(t)
			switch a.Class {
			case "rate_limited":
				if a.RetryAfterMS != 20000 {
					t.Errorf("retry_after_ms %d, want the header's 20 s", a.RetryAfterMS)
				}
				if e, _ := h.Endpoint("a", "p"); e.State != "cooling" || e.CoolingClass != "rate_limited" {
					t.Errorf("endpoint a/p %+v, want cooling for rate_limited", e)
				}
			case "auth":
				if acc, _ := h.Account("p"); acc.State != "cooling" || acc.CoolingClass != "auth" {
					t.Errorf("account p %+v, want cooling for auth", acc)
				}
			}
		})
	}
}
