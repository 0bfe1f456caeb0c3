package server

import (
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/inprogress"
	"github.com/detour-llm/detour/internal/limit"
	"github.com/detour-llm/detour/internal/metrics"
)

// State is one configuration being served.
type State struct {
	Config     *config.Config
	Dispatcher *dispatch.Dispatcher
	Health     *health.Tracker
	// Limits applies client keys' rates and budgets; nil applies none.
	Limits *limit.Limiter
}

// Server serves the HTTP API. Create it with New.
type Server struct {
	state   atomic.Pointer[State]
	bodies  inflight // request-body bytes held, across states
	slots   slots    // client keys' requests in progress, across states
	metrics *metrics.Metrics
	log     *slog.Logger
	mux     *http.ServeMux // the client API, and the operator endpoints unless apart
	admin   *http.ServeMux // the operator endpoints on their own listener
	ops     *http.ServeMux // where operator endpoints go: mux, or admin with admin_listen
	// progress keeps the requests being served now, for the console; nil
	// keeps none.
	progress *inprogress.Set
	// loaded is when the state served was loaded (New, Swap), and the
	// last reload refused since (ReloadRefused), for GET /v1/health.
	loaded atomic.Pointer[loadTimes]
	// draining is set once the process stops accepting (Drain):
	// GET /v1/health answers 503 "draining" from then on.
	draining atomic.Bool
	// notes picks the client-limit refusals logged at info (refusalnotes.go).
	notes refusalNotes
	// spending orders each request's spend against Swap: a request spends
	// under the state served before a swap or under the one after it,
	// never while a reload counts what its keys spent (docs/config.md,
	// client_keys: a budget a reload adds counts each request once).
	spending sync.RWMutex
}

type loadTimes struct{ at, refused time.Time }

// New returns a Server for st. m, log and progress may be nil; progress
// keeps every request from its start to its end (the console's "In
// progress"). When st's configuration sets admin_listen, /metrics and
// /v1/health are served only by Admin; that choice is the process's, kept
// across Swap.
func New(st *State, m *metrics.Metrics, log *slog.Logger, progress *inprogress.Set) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{metrics: m, log: log, mux: http.NewServeMux(), admin: http.NewServeMux(), progress: progress}
	s.state.Store(st)
	s.loaded.Store(&loadTimes{at: time.Now()})
	s.mux.HandleFunc(chatPath, s.chat)
	s.mux.HandleFunc("/v1/models", s.modelsFor)
	s.mux.HandleFunc("/v1/models/", s.modelsFor)
	s.messagesDoor()
	s.geminiDoor()
	s.mux.HandleFunc("/v1/responses", s.responses)
	s.mux.HandleFunc("/v1/embeddings", s.embeddings)
	s.mux.HandleFunc("/v1/completions", s.completions)
	ops := s.mux
	if st.Config.AdminListen != "" {
		ops = s.admin
	}
	s.ops = ops
	ops.HandleFunc("/v1/health", s.liveOrAdmin(s.adminOnly(s.health)))
	ops.HandleFunc("/v1/health/reset", s.adminOnly(s.healthReset))
	if m != nil {
		h := m.Handler()
		ops.HandleFunc("/metrics", s.adminOnly(func(w http.ResponseWriter, r *http.Request) {
			// Endpoint and account states are read at scrape time, so they
			// show the truth (shared state included), not the last change
			// this replica happened to cause.
			s.snapshot(r.Context())
			h.ServeHTTP(w, r)
		}))
	}
	notFound := func(w http.ResponseWriter, r *http.Request) {
		closeAfter(w)
		if isGemini(r) { // a Gemini client: Google's envelope (its ?key= is gone: ServeHTTP)
			geminiError(w, http.StatusNotFound, notFoundMessage(r.URL.Path))
			return
		}
		if r.Header.Get("Anthropic-Version") != "" { // an Anthropic SDK: its envelope
			anthropicError(w, http.StatusNotFound, notFoundMessage(r.URL.Path))
			return
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", notFoundMessage(r.URL.Path))
	}
	s.mux.HandleFunc("/", notFound)
	s.admin.HandleFunc("/", notFound)
	return s
}

// Swap serves st from now on; requests in flight finish on the old state
// (their spend counts against their key in st: spender). It returns the
// old state. first, when not nil, runs just before, while no request is
// spending (it waits for those spending, and holds the next): a reload
// takes there what the keys that st gives a budget spent without one, and
// a request's spend lands either before (and is taken) or after (under
// st's budgets), never between. first must be quick: every answer waits.
func (s *Server) Swap(st *State, first func()) *State {
	if first != nil {
		s.spending.Lock()
		defer s.spending.Unlock()
		first()
	}
	s.loaded.Store(&loadTimes{at: time.Now()})
	s.notes.reset()
	return s.state.Swap(st)
}

// Drain says the process has stopped accepting requests and is draining
// those in flight: GET /v1/health answers 503 {"status":"draining"} from
// now on, where an admin_listen listener still serves it (review 56: it
// answered 200 "serving" through the drain, and a balancer checking it
// kept sending clients to a closed port).
func (s *Server) Drain() { s.draining.Store(true) }

// status is GET /v1/health's status and HTTP status: serving, or draining.
func (s *Server) status() (string, int) {
	if s.draining.Load() {
		return "draining", http.StatusServiceUnavailable
	}
	return "serving", http.StatusOK
}

// LoadedAt is when the configuration served was loaded: the start, or the
// last reload applied.
func (s *Server) LoadedAt() time.Time { return s.loaded.Load().at }

// ReloadRefused records that a reload was refused at at: the state served
// stays, and GET /v1/health says so (config.reload_refused_at) until a
// reload is applied.
func (s *Server) ReloadRefused(at time.Time) {
	s.loaded.Store(&loadTimes{at: s.loaded.Load().at, refused: at})
}

// Loaded is when the configuration served was loaded and when a reload was
// last refused since (zero when none was).
func (s *Server) Loaded() (at, refused time.Time) {
	lt := s.loaded.Load()
	return lt.at, lt.refused
}

// Current returns the state being served.
func (s *Server) Current() *State { return s.state.Load() }

// ServeHTTP implements http.Handler: the front's guards (guard.go), then
// the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w = &deadlineWriter{ResponseWriter: w}
	keyFromQuery(r) // before anything reads the URL, the mux's redirects included (hostile 69g)
	closeAfterChunked(w, r)
	if guard(s.state.Load().Config, w, r) {
		r = unprefixed(r)
		if isChatPath(r) { // what the mux would choose, without its cleaning and matching
			r.Pattern = chatPath
			s.chat(w, r)
			return
		}
		s.mux.ServeHTTP(w, r)
	}
}

// vendorPrefix is what Groq's own SDK (groq-sdk) puts before every path
// it calls: its base URL is the host (https://api.groq.com) and its paths
// /openai/v1/chat/completions, /openai/v1/models and so on, so no base URL
// makes it call /v1/... (probe 68j: every call through Detour was a 404
// "unknown path /openai/v1/chat/completions").
const vendorPrefix = "/openai"

// unprefixed is r with a path under /openai/v1/ served as the same path
// under /v1/ (vendorPrefix), as http.StripPrefix does it: a copy of r with
// its own URL. Any other request is r itself.
func unprefixed(r *http.Request) *http.Request {
	rest, ok := strings.CutPrefix(r.URL.Path, vendorPrefix)
	if !ok || !strings.HasPrefix(rest, "/v1/") {
		return r
	}
	raw := ""
	if r.URL.RawPath != "" {
		if raw, ok = strings.CutPrefix(r.URL.RawPath, vendorPrefix); !ok || !strings.HasPrefix(raw, "/v1/") {
			// Escaped in the prefix itself, or in "/v1/" after it: not the
			// SDK's path ("/openai%2Fv1/…" was served as "%2Fv1/…", which
			// the mux redirected to "/%252Fv1/…": hostile 69d).
			return r
		}
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.Path, r2.URL.RawPath = rest, raw
	return r2
}

// chatPath is the Chat Completions door's path, and its pattern in the mux.
const chatPath = "/v1/chat/completions"

// isChatPath reports whether r's path is chatPath exactly, written plainly
// (no escape, nothing the mux would clean or redirect): the mux would
// serve it with s.chat, the most frequent request, which ServeHTTP calls
// directly (docs/benchmarks.md, "Round 23"). Any other spelling goes
// through the mux as before. CONNECT, which the mux matches by its
// authority, never takes this way.
func isChatPath(r *http.Request) bool {
	return r.URL.Path == chatPath && r.URL.RawPath == "" && r.Method != http.MethodConnect
}

// Admin is the handler of the admin_listen listener: /metrics and
// /v1/health (when admin_listen is set), behind the same guards.
func (s *Server) Admin() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = &deadlineWriter{ResponseWriter: w}
		keyFromQuery(r) // its notFound answers a Gemini client too: no key in its redirects either
		closeAfterChunked(w, r)
		if guard(s.state.Load().Config, w, r) {
			s.admin.ServeHTTP(w, r)
		}
	})
}

// closeAfterChunked makes the answer to an HTTP/1.x request whose body
// came chunked the connection's last. Such a request may also have carried
// a Content-Length, which net/http drops unseen: a proxy in front that
// framed it by that length reads a different request boundary than ours,
// and what it sent after our last chunk would be served as a request it
// never passed on (request smuggling). RFC 9112 §6.1 asks a server to
// close after such a message; net/http does not (docs/security.md).
func closeAfterChunked(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor == 1 && len(r.TransferEncoding) > 0 {
		closeAfter(w)
	}
}

// adminOnly requires one of admin_keys, when any are configured: as a
// Bearer token, or as the password of HTTP Basic credentials (any user
// name), which is what a browser can send when it navigates to the
// console. A refusal asks for Basic credentials, so a browser prompts.
func (s *Server) adminOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if keys := s.state.Load().Config.AdminKeys; len(keys) > 0 && !bearerMatches(r, keys) && !basicMatches(r, keys) {
			closeAfter(w)
			w.Header().Set("WWW-Authenticate", `Basic realm="detour operator", charset="UTF-8"`)
			refuse(w, http.StatusUnauthorized, "authentication_error", "invalid_admin_key",
				"missing or invalid admin key: send Authorization: Bearer <one of admin_keys>, or Basic credentials whose password is one")
			return
		}
		h(w, r)
	}
}

// liveOrAdmin answers a GET (or HEAD, or OPTIONS: HAProxy's default check
// method) that carries no credentials at all with
// {"status":"serving"} alone when admin_keys are set, and passes every
// other request to h: a load balancer's health check (an AWS target group,
// HAProxy's httpchk, a Kubernetes probe) sends no header, and with a 401
// it took every replica out (operator review 53). Nothing the admin keys
// guard is in that answer; a wrong key is still refused. A browser's
// navigation (it accepts text/html) is still asked for the key (review 53).
func (s *Server) liveOrAdmin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if (r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions) && len(s.state.Load().Config.AdminKeys) > 0 && r.Header.Get("Authorization") == "" &&
			!strings.Contains(r.Header.Get("Accept"), "text/html") {
			st, code := s.status()
			writeJSONStatus(w, code, map[string]string{"status": st})
			return
		}
		h(w, r)
	}
}

// basicMatches reports whether r carries Basic credentials whose password
// is one of keys (compared in constant time; the user name is not read).
func basicMatches(r *http.Request, keys []string) bool {
	_, pw, ok := r.BasicAuth()
	if !ok {
		return false
	}
	match := 0
	for _, k := range keys {
		match |= subtle.ConstantTimeCompare([]byte(pw), []byte(k))
	}
	return match == 1
}

// bearerMatches reports whether r's Authorization is "Bearer <key>" for one
// of keys. The scheme is case-insensitive (RFC 9110 §11.1), the key is not;
// keys are compared in constant time.
func bearerMatches(r *http.Request, keys []string) bool {
	scheme, got, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimLeft(got, " ")
	match := 0
	for _, k := range keys {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(k))
	}
	return match == 1
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	d := openAIDoor("chat", dispatch.OpChat, nil)
	a := s.admit(w, r, d)
	if a == nil {
		return
	}
	defer s.end(a) // the body is kept for failover until the request ends
	// The front's one pass over the body found "messages"; the body itself
	// goes upstream as sent (but for "model").
	if msg := checkMessages(a.head); msg != "" {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", msg)
		return
	}
	call := &dispatch.Call{Model: a.model, Body: a.body, Stream: a.stream}
	if !s.begin(w, r, d, a, call) {
		return
	}
	if call.Stream {
		call.Out = newSSEOutput(w, call.ID, call.Model)
	}
	s.do(w, r, d, a, call)
}

// checkMessages returns why a Chat Completions body's "messages" is
// unusable, or "".
func checkMessages(hd head) string {
	if len(hd.messages) == 0 {
		return `"messages" is required`
	}
	if hd.messages[0] != '[' {
		return `"messages" must be an array of messages`
	}
	return ""
}

// jsonString decodes v, a checked JSON value, when it is a string.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if q := v[1 : len(v)-1]; !hasByte(q, '\\') && utf8.Valid(q) {
		return string(q), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}
