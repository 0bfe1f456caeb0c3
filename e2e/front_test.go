package e2e

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The HTTP front under hostile input (docs/security.md, "Hostile clients at
// the HTTP front"): every refusal is the gateway's own, in the OpenAI
// envelope, and reaches no upstream.

const frontCfg = `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
`

// wantEnvelope checks r is the gateway's own error: status, the OpenAI
// envelope, and a message containing msg.
func wantEnvelope(t *testing.T, r reply, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	e, _ := r.json(t)["error"].(map[string]any)
	if e == nil || e["type"] == nil || e["code"] == nil {
		t.Fatalf("not an OpenAI envelope: %s", r.Body)
	}
	if m := r.errMessage(t); !strings.Contains(m, msg) {
		t.Errorf("message %q lacks %q", m, msg)
	}
}

// One reading of the request: a body the gateway and an upstream could read
// differently (a repeated member, a member spelled like one the gateway
// reads but for case) is refused before any upstream is called.
func TestAmbiguousBodiesAreRefused(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ name, body, msg string }{
		{"stream twice by case", `{"model":"a",` + msgs + `,"stream":true,"STREAM":false}`, `"STREAM"`},
		{"stream alone by case", `{"model":"a",` + msgs + `,"Stream":true}`, `"Stream"`},
		{"stream twice", `{"model":"a",` + msgs + `,"stream":false,"stream":true}`, `"stream"`},
		{"stream twice through an escape", `{"model":"a",` + msgs + `,"stre\u0061m":true,"stream":false}`, `"stream"`},
		{"stream by Unicode case folding", `{"model":"a",` + msgs + `,"stream":false,"ſtream":true}`, `"ſtream"`},
		{"model twice", `{"model":"a",` + msgs + `,"model":"b"}`, `"model"`},
		{"model by case", `{"model":"a",` + msgs + `,"MODEL":"b"}`, `"MODEL"`},
		{"messages by case", `{"model":"a",` + msgs + `,"Messages":[]}`, `"Messages"`},
		{"a translated member by case", `{"model":"a",` + msgs + `,"max_tokens":5,"MAX_TOKENS":5000}`, `"MAX_TOKENS"`},
		{"a member twice inside a message", `{"model":"a","messages":[{"role":"user","content":"hi","content":"bye"}]}`, `"content"`},
		{"a member twice deep in an array", `{"model":"a",` + msgs + `,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{},"type":"array"}}}]}`, `"type"`},
		{"an unknown member twice", `{"model":"a",` + msgs + `,"x_extra":1,"x_extra":2}`, `"x_extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", tc.body)
			wantEnvelope(t, r, 400, tc.msg)
		})
	}
	if n := fs["p"].Calls(); n != 0 {
		t.Errorf("the upstream was called %d times for refused bodies", n)
	}
	// What stays allowed: the same name in different objects, and names
	// the gateway does not read differing only by case.
	for _, body := range []string{
		`{"model":"a","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}],"metadata":{"model":"x","messages":1}}`,
		`{"model":"a",` + msgs + `,"x_vendor":1,"X_VENDOR":2}`,
	} {
		g.raw(t, http.MethodPost, "/v1/chat/completions", body).wantStatus(t, 200)
	}
	if n := fs["p"].Calls(); n != 2 {
		t.Errorf("the upstream was called %d times, want 2", n)
	}
}

// The members the gateway reads must have the right kind.
func TestMembersOfTheWrongKindAreRefused(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ name, body, msg string }{
		{"messages null", `{"model":"a","messages":null}`, `"messages"`},
		{"messages a string", `{"model":"a","messages":"hi"}`, `"messages"`},
		{"messages an object", `{"model":"a","messages":{"role":"user"}}`, `"messages"`},
		{"messages missing", `{"model":"a"}`, `"messages"`},
		{"model a number", `{"model":5,` + msgs + `}`, `"model"`},
		{"model null", `{"model":null,` + msgs + `}`, `"model"`},
		{"model a list", `{"model":["a"],` + msgs + `}`, `"model"`},
		{"model empty", `{"model":"",` + msgs + `}`, `"model"`},
		{"stream a string", `{"model":"a",` + msgs + `,"stream":"yes"}`, `"stream"`},
		{"body a list", `[{"model":"a"}]`, "JSON object"},
		{"body null", `null`, "JSON object"},
		{"trailing bytes", `{"model":"a",` + msgs + `} {}`, "invalid JSON"},
		{"truncated", `{"model":"a",` + msgs, "invalid JSON"},
		{"bad number", `{"model":"a",` + msgs + `,"temperature":01}`, "invalid JSON"},
		{"control character in a string", "{\"model\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x01b\"}]}", "invalid JSON"},
		{"bad escape", `{"model":"a","messages":[{"role":"user","content":"\x"}]}`, "invalid JSON"},
		{"too deep", `{"model":"a",` + msgs + `,"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, g.raw(t, http.MethodPost, "/v1/chat/completions", tc.body), 400, tc.msg)
		})
	}
	if n := fs["p"].Calls(); n != 0 {
		t.Errorf("the upstream was called %d times for refused bodies", n)
	}
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"a",`+msgs+`,"stream":null}`).wantStatus(t, 200)
}

// send is raw with full control: no default Content-Type, and a "Host"
// pair sets the request's Host.
func (g *gateway) send(t *testing.T, method, path, body string, headers ...string) reply {
	t.Helper()
	r, err := g.try(method, path, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// try is send for other goroutines than the test's: it returns the error.
func (g *gateway) try(method, path, body string, headers ...string) (reply, error) {
	req, err := http.NewRequest(method, g.URL+path, strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}, err
}

// postAsync sends a JSON chat body from another goroutine; the reply (a
// transport failure as status 0) arrives on the channel.
func (g *gateway) postAsync(body string) <-chan reply {
	c := make(chan reply, 1)
	go func() {
		r, err := g.try(http.MethodPost, "/v1/chat/completions", body, "Content-Type", "application/json")
		if err != nil {
			r = reply{Body: []byte(err.Error())}
		}
		c <- r
	}()
	return c
}

// within waits up to 30s (a failure guard) for a reply.
func within(t *testing.T, c <-chan reply, what string) reply {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("no answer in 30s: %s", what)
		return reply{}
	}
}

const hiBody = `{"model":"a","messages":[{"role":"user","content":"hi"}]}`

// Browsers cannot drive the gateway: with no client keys (the default), a
// web page's cross-origin POST (text/plain, a form, any Origin), a page of
// a sibling site, and a DNS-rebinding page under its own host name are all
// refused before any upstream is called; SDK-like clients pass.
func TestBrowsersCannotDriveTheGateway(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	port := g.URL[strings.LastIndex(g.URL, ":")+1:]
	const chat = "/v1/chat/completions"
	for _, tc := range []struct {
		name, method, path, body string
		headers                  []string
		status                   int
		msg                      string
	}{
		{"text/plain, the simple request a page may send unasked", "POST", chat, hiBody, []string{"Content-Type", "text/plain;charset=UTF-8"}, 415, "application/json"},
		{"a form", "POST", chat, hiBody, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, "application/json"},
		{"multipart", "POST", chat, hiBody, []string{"Content-Type", "multipart/form-data; boundary=x"}, 415, "application/json"},
		{"no Content-Type", "POST", chat, hiBody, nil, 415, "application/json"},
		{"a look-alike type", "POST", chat, hiBody, []string{"Content-Type", "application/jsonp"}, 415, "application/json"},
		{"a cross-origin page", "POST", chat, hiBody, []string{"Content-Type", "application/json", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, 403, `"https://evil.example"`},
		{"a page on another port of this host", "POST", chat, hiBody, []string{"Content-Type", "application/json", "Origin", "http://127.0.0.1:3000", "Sec-Fetch-Site", "same-site"}, 403, "cors.allowed_origins"},
		{"a sandboxed page", "POST", chat, hiBody, []string{"Content-Type", "application/json", "Origin", "null"}, 403, "cors.allowed_origins"},
		{"cross-site without Origin", "POST", chat, hiBody, []string{"Content-Type", "application/json", "Sec-Fetch-Site", "cross-site"}, 403, "another site"},
		{"same-site without Origin", "GET", "/v1/models", "", []string{"Sec-Fetch-Site", "same-site"}, 403, "another site"},
		// A link followed in a tab opens a console page (hostile 56), not
		// the console's data, nor anything else, nor a frame of it.
		{"a link followed to the console's data", "GET", "/ui/api/health", "", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, 403, "another site"},
		{"a link followed to the models", "GET", "/v1/models", "", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, 403, "another site"},
		{"a console page in another site's frame", "GET", "/ui/health", "", []string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}, 403, "another site"},
		{"a form posted to the console", "POST", "/ui/health", "", []string{"Content-Type", "application/json", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, 403, "another site"},
		{"a cross-origin read of the models", "GET", "/v1/models", "", []string{"Origin", "https://evil.example"}, 403, "cors.allowed_origins"},
		{"a preflight from an unlisted origin", "OPTIONS", chat, "", []string{"Origin", "https://evil.example", "Access-Control-Request-Method", "POST"}, 403, "cors.allowed_origins"},
		{"DNS rebinding: a POST under the attacker's name", "POST", chat, hiBody, []string{"Content-Type", "application/json", "Host", "rebind.evil.example:" + port, "Origin", "http://rebind.evil.example:" + port}, 403, "allowed_hosts"},
		{"DNS rebinding: a same-origin read of health", "GET", "/v1/health", "", []string{"Host", "rebind.evil.example:" + port, "Sec-Fetch-Site", "same-origin"}, 403, "allowed_hosts"},
		{"DNS rebinding: metrics", "GET", "/metrics", "", []string{"Host", "rebind.evil.example"}, 403, "allowed_hosts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.send(t, tc.method, tc.path, tc.body, tc.headers...)
			wantEnvelope(t, r, tc.status, tc.msg)
			if v := r.Header.Get("Access-Control-Allow-Origin"); v != "" {
				t.Errorf("a refused request got Access-Control-Allow-Origin %q", v)
			}
		})
	}
	if n := fs["p"].Calls(); n != 0 {
		t.Fatalf("the upstream was called %d times for refused requests", n)
	}
	// What clients without a browser send passes unchanged.
	for _, tc := range [][]string{
		{"Content-Type", "application/json"},
		{"Content-Type", "application/json; charset=utf-8"},
		{"Content-Type", "Application/JSON"},
		{"Content-Type", "application/vnd.api+json"},
		{"Content-Type", "application/json", "Host", "localhost:" + port},
		{"Content-Type", "application/json", "Host", "api.localhost:" + port},
		{"Content-Type", "application/json", "Host", "[::1]:" + port},
		{"Content-Type", "application/json", "Sec-Fetch-Site", "none"},
	} {
		g.send(t, "POST", chat, hiBody, tc...).wantStatus(t, 200)
	}
	g.send(t, "GET", "/v1/health", "").wantStatus(t, 200)
	g.send(t, "GET", "/ui/decisions?id=x", "", "Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document").wantStatus(t, 200)
	if n := fs["p"].Calls(); n != 8 {
		t.Errorf("the upstream was called %d times, want 8", n)
	}
}

// A listed origin may call from a browser: its preflight is answered, and
// its real responses (successes, errors and streams) carry the CORS headers.
func TestCORSForAListedOrigin(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"), okStream("model-a", "s"))})
	g := start(t, "cors: {allowed_origins: [\"https://App.example\"]}\n"+frontCfg, fs)
	const origin = "https://app.example"
	const chat = "/v1/chat/completions"
	pre := g.send(t, "OPTIONS", chat, "", "Origin", origin, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization,content-type,x-detour-max-attempts,x-stainless-os")
	pre.wantStatus(t, 204)
	for name, want := range map[string][]string{
		"Access-Control-Allow-Origin":  {origin},
		"Access-Control-Allow-Methods": {"POST", "GET"},
		"Access-Control-Allow-Headers": {"Authorization", "Content-Type", "X-Detour-Max-Attempts", "X-Detour-Max-Billable-Attempts", "x-stainless-os"},
		"Vary":                         {"Origin"},
	} {
		for _, w := range want {
			if !strings.Contains(pre.Header.Get(name), w) {
				t.Errorf("preflight %s = %q, want it to contain %q", name, pre.Header.Get(name), w)
			}
		}
	}
	for _, tc := range []struct {
		body   string
		status int
	}{
		{hiBody, 200},
		{`{"model":"nope","messages":[]}`, 404},
		{`{"model":"a","stream":true,"messages":[{"role":"user","content":"hi"}]}`, 200},
	} {
		r := g.send(t, "POST", chat, tc.body, "Content-Type", "application/json", "Origin", origin, "Sec-Fetch-Site", "cross-site")
		r.wantStatus(t, tc.status)
		if got := r.Header.Get("Access-Control-Allow-Origin"); got != origin {
			t.Errorf("%s: Access-Control-Allow-Origin %q, want %q", tc.body, got, origin)
		}
		if got := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(got, "X-Detour-Decision") || !strings.Contains(got, "X-Detour-Class") || !strings.Contains(got, "X-Should-Retry") {
			t.Errorf("Access-Control-Expose-Headers %q", got)
		}
	}
	// A look-alike origin is not the listed one.
	for _, o := range []string{"https://app.example.evil", "http://app.example", "https://app.example:8443"} {
		wantEnvelope(t, g.send(t, "POST", chat, hiBody, "Content-Type", "application/json", "Origin", o), 403, "cors.allowed_origins")
	}
	if n := fs["p"].Calls(); n != 2 {
		t.Errorf("the upstream was called %d times, want 2", n)
	}
}

// allowed_hosts names the host names the gateway answers to beside
// localhost and IP addresses (a reverse proxy's name, say).
func TestAllowedHosts(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, "allowed_hosts: [detour.internal]\n"+frontCfg, fs)
	g.send(t, "POST", "/v1/chat/completions", hiBody, "Content-Type", "application/json", "Host", "Detour.Internal:443").wantStatus(t, 200)
	g.send(t, "GET", "/v1/health", "", "Host", "127.0.0.1").wantStatus(t, 200)
	wantEnvelope(t, g.send(t, "GET", "/v1/health", "", "Host", "other.internal"), 403, "allowed_hosts")
}

// The Bearer scheme is case-insensitive (RFC 9110 §11.1); the key is not.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, "client_keys: [client-key-1]\n"+frontCfg, fs)
	for auth, want := range map[string]int{
		"Bearer client-key-1":   200,
		"bearer client-key-1":   200,
		"BEARER client-key-1":   200,
		"bEaReR  client-key-1":  200,
		"Bearer CLIENT-KEY-1":   401,
		"Basic client-key-1":    401,
		"Bearerclient-key-1":    401,
		"client-key-1":          401,
		"Bearer client-key-1 x": 401,
	} {
		r := g.send(t, http.MethodPost, "/v1/chat/completions", hiBody, "Content-Type", "application/json", "Authorization", auth)
		if r.Status != want {
			t.Errorf("Authorization %q: %d, want %d", auth, r.Status, want)
		}
	}
}

// With admin_keys, /metrics and /v1/health need one (Bearer) on the main
// listener; the client API is unaffected, and a client key does not open
// them. Without admin_keys they stay open (TestKeysNeverLeak reads them).
// A GET of /v1/health with no credentials at all (a load balancer's check)
// is answered {"status":"serving"} and nothing more (operator review 53:
// it was a 401, and a balancer took every replica out).
func TestAdminKeysOnTheMainListener(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, "client_keys: [client-key-1]\nadmin_keys: [admin-key-1]\n"+frontCfg, fs)
	for _, path := range []string{"/metrics", "/v1/health"} {
		for auth, want := range map[string]int{"": 401, "Bearer client-key-1": 401, "Bearer admin-key-2": 401, "Bearer admin-key-1": 200, "bearer admin-key-1": 200} {
			if path == "/v1/health" && auth == "" {
				want = 200
			}
			r := g.send(t, http.MethodGet, path, "", "Authorization", auth)
			if r.Status != want {
				t.Errorf("%s with %q: %d, want %d", path, auth, r.Status, want)
			}
			if want == 401 {
				wantEnvelope(t, r, 401, "admin_keys")
			}
			if path == "/v1/health" && auth == "" && strings.TrimSpace(string(r.Body)) != `{"status":"serving"}` {
				t.Errorf("/v1/health without credentials says more than that it serves: %s", r.Body)
			}
		}
	}
	g.send(t, http.MethodPost, "/v1/chat/completions", hiBody, "Content-Type", "application/json", "Authorization", "Bearer client-key-1").wantStatus(t, 200)
	g.send(t, http.MethodGet, "/v1/models", "", "Authorization", "Bearer client-key-1").wantStatus(t, 200)
	g.send(t, http.MethodGet, "/v1/models", "", "Authorization", "Bearer admin-key-1").wantStatus(t, 401)
}

// The console is an operator page: it is guarded by admin_keys like
// /metrics, and since a browser cannot send a Bearer token when it
// navigates, it also takes HTTP Basic credentials whose password is an
// admin key (any user name); a refusal asks the browser for them.
func TestConsoleIsGuardedByAdminKeys(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, "client_keys: [client-key-1]\nadmin_keys: [admin-key-1]\n"+frontCfg, fs)
	basic := func(user, pw string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pw))
	}
	for auth, want := range map[string]int{"": 401, "Bearer client-key-1": 401, basic("ops", "client-key-1"): 401,
		basic("ops", "admin-key-2"): 401, "Bearer admin-key-1": 200, basic("ops", "admin-key-1"): 200, basic("", "admin-key-1"): 200} {
		r := g.send(t, http.MethodGet, "/ui/", "", "Authorization", auth)
		if r.Status != want {
			t.Errorf("/ui/ with %q: %d, want %d", auth, r.Status, want)
		}
		if want == 401 && !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("/ui/ refused without asking for Basic credentials: %q", r.Header.Get("WWW-Authenticate"))
		}
	}
	// Basic credentials open the operator endpoints too, never the API.
	g.send(t, http.MethodGet, "/metrics", "", "Authorization", basic("ops", "admin-key-1")).wantStatus(t, 200)
	g.send(t, http.MethodGet, "/v1/models", "", "Authorization", basic("ops", "admin-key-1")).wantStatus(t, 401)
}
