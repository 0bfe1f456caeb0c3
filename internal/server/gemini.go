package server

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/gemini"
	"github.com/detour-llm/detour/internal/rawjson"
)

// The Google Gemini door (docs/doors.md, "Google Gemini"):
// POST /v1beta/models/{model}:generateContent and :streamGenerateContent
// (SSE, ?alt=sse), :countTokens, :embedContent and :batchEmbedContents,
// and GET /v1beta/models[/{model}], each
// also under /v1/models/ (the SDKs' apiVersion "v1"). {model} is a route or
// target name. Every error on it is in Google's envelope with Google's
// status names. Keys come as Google's clients send them: x-goog-api-key,
// ?key= (moved into the header before anything reads the request, so the
// URL that holds it is never logged, recorded or forwarded), or Bearer.

// geminiMembers are the top-level members the Gemini door reads, by
// case-folded name: a name differing from one only by case is refused, as
// on the other doors (strict.go).
var geminiMembers = foldMap("contents", "systemInstruction", "tools", "toolConfig", "generationConfig",
	"safetySettings", "cachedContent", "labels", "generateContentRequest")

// geminiPrefixes are the paths the door serves models under.
var geminiPrefixes = []string{"/v1beta/models", "/v1/models"}

func (s *Server) geminiDoor() {
	s.mux.HandleFunc("/v1beta/models", s.gemini)
	s.mux.HandleFunc("/v1beta/models/", s.gemini)
}

// geminiPath splits r's path under a models prefix into the model and the
// method after its last colon (generateContent…); method is "" for a
// model's own path, and model "" for the list. ok is false for another
// path.
func geminiPath(r *http.Request) (model, method string, ok bool) {
	for _, p := range geminiPrefixes {
		rest, found := strings.CutPrefix(r.URL.Path, p)
		if !found || rest != "" && rest[0] != '/' {
			continue
		}
		rest = strings.TrimPrefix(rest, "/")
		if i := strings.LastIndexByte(rest, ':'); i >= 0 {
			return rest[:i], rest[i+1:], true
		}
		return rest, "", true
	}
	return "", "", false
}

// geminiTarget is the front's reading of a Gemini request's path: the
// model it names and whether it streams.
func geminiTarget(r *http.Request) (string, bool) {
	model, method, _ := geminiPath(r)
	return model, method == "streamGenerateContent"
}

// isGemini reports whether r comes from a Gemini client: a key where only
// Google's clients put one (x-goog-api-key, where ServeHTTP's keyFromQuery
// has moved a ?key= already), or its client header.
func isGemini(r *http.Request) bool {
	return r.Header.Get("X-Goog-Api-Key") != "" || r.Header.Get("X-Goog-Api-Client") != ""
}

// keyFromQuery moves a ?key= client key into x-goog-api-key (unless the
// request carries one there already) and takes it out of r's URL: from
// here on no log line, record, message or upstream request can quote the
// URL with the key in it (docs/security.md).
//
// It runs first of all, for every request (Server.ServeHTTP): the mux's
// redirect of a path it cleans ("..", "//") copied the query, key and all,
// into its Location before any handler ran (hostile 69g). A name spelled
// with an escape (%6Bey) is key to Google and to Go's reader alike; pairs
// no reader can parse (after a ';', a bad escape) are dropped with it, so
// none can carry a key past this point.
func keyFromQuery(r *http.Request) {
	raw := r.URL.RawQuery
	if raw == "" || !strings.Contains(raw, "key") && !strings.Contains(raw, "%") {
		return
	}
	q, err := url.ParseQuery(raw)
	if !q.Has("key") && err == nil {
		return
	}
	if r.Header.Get("X-Goog-Api-Key") == "" && q.Get("key") != "" {
		r.Header.Set("X-Goog-Api-Key", q.Get("key"))
	}
	q.Del("key")
	r.URL.RawQuery = q.Encode()
}

// geminiKey is the client key r presents as Google's clients send it:
// x-goog-api-key (where keyFromQuery put a ?key=), else a Bearer token.
func geminiKey(r *http.Request) string {
	if k := r.Header.Get("X-Goog-Api-Key"); k != "" {
		return k
	}
	k, _ := bearer(r)
	return k
}

// geminiClient finds the client key r presents (geminiKey; none when it
// is empty).
func geminiClient(cfg *config.Config, r *http.Request) (*config.ClientKey, bool) {
	k := geminiKey(r)
	return clientByKey(cfg, k, k != "")
}

// geminiError writes the gateway's own error in Google's envelope.
func geminiError(w http.ResponseWriter, status int, msg string) {
	var wait time.Duration
	if n, err := strconv.ParseInt(w.Header().Get("Retry-After"), 10, 64); err == nil && n > 0 {
		wait = time.Duration(n) * time.Second // a limit's refusal, a full allowance: said in the body too
	}
	writeEnvelope(w, status, gemini.EnvelopeWait(status, clientMessage(msg), wait))
}

// geminiFront is the front of the Gemini door.
var geminiFront = door{name: "gemini", op: dispatch.OpChat, members: geminiMembers, client: geminiClient,
	key: geminiKey, target: geminiTarget,
	keyHint: "send x-goog-api-key: <key>, ?key=<key> or Authorization: Bearer <key>",
	fail:    func(w http.ResponseWriter, status int, _, msg string) { geminiError(w, status, msg) },
	failure: func(f *dispatch.Failure) []byte {
		return gemini.ClassEnvelopeWait(f.Class, f.Status, clientMessage(f.Message), f.RetryAfter)
	}}

// geminiCountFront is the front of :countTokens, whose estimate is never
// refused (as count_tokens'); geminiCountExact is an exact count's, an
// upstream call.
var (
	geminiCountFront = func() door { d := geminiFront; d.name, d.advisory = "gemini_count_tokens", true; return d }()
	geminiCountExact = func() door { d := geminiFront; d.name = "gemini_count_tokens"; return d }()
)

// gemini serves every path under /v1beta/models (and, from modelsFor,
// the Gemini paths under /v1/models).
func (s *Server) gemini(w http.ResponseWriter, r *http.Request) {
	keyFromQuery(r)
	model, method, _ := geminiPath(r)
	switch method {
	case "":
		s.geminiModels(w, r, model)
	case "generateContent", "streamGenerateContent":
		s.geminiGenerate(w, r, method)
	case "countTokens":
		s.geminiCount(w, r)
	case "embedContent", "batchEmbedContents":
		s.geminiEmbed(w, r, method == "batchEmbedContents")
	default:
		closeAfter(w)
		s.refuse(w, geminiFront, http.StatusNotFound, "not_found",
			"Detour's Gemini door serves generateContent, streamGenerateContent, countTokens, embedContent and batchEmbedContents, not "+quoteHeader(method))
	}
}

// The fronts of :embedContent and :batchEmbedContents: the Gemini door's
// keys, limits and envelope, the embeddings operation (a route with no
// target that embeds is a 400, as at /v1/embeddings), and the members each
// reads.
var (
	geminiEmbedFront = func() door {
		d := geminiFront
		d.name, d.op, d.members = "gemini_embeddings", dispatch.OpEmbeddings,
			foldMap("model", "content", "taskType", "title", "outputDimensionality")
		return d
	}()
	geminiBatchEmbedFront = func() door { d := geminiEmbedFront; d.members = foldMap("requests"); return d }()
)

// geminiEmbed answers :embedContent (batch false) and :batchEmbedContents
// through the embeddings dispatch of /v1/embeddings (embeddings.go): the
// request is translated into an OpenAI embeddings body
// (gemini.TranslateEmbed) and the answer back (gemini.EmbedAnswer), for
// every target, Gemini's included (docs/doors.md, "Google Gemini").
func (s *Server) geminiEmbed(w http.ResponseWriter, r *http.Request, batch bool) {
	d := geminiEmbedFront
	if batch {
		d = geminiBatchEmbedFront
	}
	in := s.admit(w, r, d)
	if in == nil {
		return
	}
	defer s.end(in)
	var (
		body []byte
		err  error
	)
	if !s.translate(w, d, in, func() int { body, err = gemini.TranslateEmbed(in.body, in.model, batch); return len(body) }) {
		return
	}
	if err != nil {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	call := &dispatch.Call{Model: in.model, Body: body, API: "gemini", Op: dispatch.OpEmbeddings}
	// The one parse of the body the adapters read, as /v1/embeddings
	// makes it (embeddings.go).
	if !s.reserveFor(w, d, in, dispatch.EmbeddingsCost(body), func() (held int) { held, err = call.CheckEmbeddings(); return held }) {
		return
	}
	if err != nil {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	call.Whole = func(b []byte) ([]byte, error) { return gemini.EmbedAnswer(b, batch) }
	if !s.begin(w, r, d, in, call) {
		return
	}
	s.do(w, r, d, in, call)
}

func (s *Server) geminiGenerate(w http.ResponseWriter, r *http.Request, method string) {
	if method == "streamGenerateContent" && r.URL.Query().Get("alt") != "sse" {
		// Without alt=sse Google streams one JSON array written piece by
		// piece; every SDK asks for SSE (docs/doors.md).
		closeAfter(w)
		s.refuse(w, geminiFront, http.StatusBadRequest, "invalid_request",
			"Detour streams streamGenerateContent as server-sent events only: add ?alt=sse to the URL")
		return
	}
	in := s.admit(w, r, geminiFront)
	if in == nil {
		return
	}
	defer s.end(in)
	var call *dispatch.Call
	thoughts := new(bool) // set by the translation, early or late
	if in.st.Dispatcher.ServesNative(in.model, dispatch.APIGenerateContent) {
		call = s.geminiNativeFirst(w, r, in, thoughts)
	} else {
		call = s.geminiTranslated(w, r, in, thoughts)
	}
	if call == nil {
		return
	}
	call.Whole = func(b []byte) ([]byte, error) { return gemini.Answer(b, call.Model, *thoughts) }
	s.do(w, r, geminiFront, in, call)
}

// geminiTranslated makes ready a request whose route begins with a target
// that needs it translated, or answers it and returns nil. A request only
// Gemini serves (gemini.Error.Unsupported) still goes to a route that has a
// Gemini target, which gets it as sent; elsewhere it is a 400.
func (s *Server) geminiTranslated(w http.ResponseWriter, r *http.Request, in *admitted, thoughts *bool) *dispatch.Call {
	var (
		tr  gemini.Translated
		err error
	)
	if !s.translate(w, geminiFront, in, func() int {
		tr, err = gemini.Translate(in.body, in.model, in.stream)
		return len(tr.Body)
	}) {
		return nil
	}
	*thoughts = tr.Thoughts
	call := &dispatch.Call{Model: in.model, Stream: in.stream, API: "gemini",
		Native: &dispatch.Native{API: dispatch.APIGenerateContent, Body: in.body}}
	if err != nil {
		var ge *gemini.Error
		if !errors.As(err, &ge) || !ge.Unsupported || !in.st.Dispatcher.NativeOnRoute(in.model, dispatch.APIGenerateContent) {
			s.refuse(w, geminiFront, http.StatusBadRequest, "invalid_request", err.Error())
			return nil
		}
		call.Native.Untranslated = err
	} else {
		call.Body = tr.Body
	}
	if !s.begin(w, r, geminiFront, in, call) {
		return nil
	}
	if call.Stream {
		call.Out = newGeminiOutput(w, call.ID, call.Model, thoughts)
	}
	return call
}

// geminiNativeFirst makes ready a request whose route begins with a Gemini
// target: that target judges the request itself, so the door refuses only
// a body without a list of contents, and leaves the translation other
// targets need to the walk (dispatch.Native.Translate), as the Messages
// door does.
func (s *Server) geminiNativeFirst(w http.ResponseWriter, r *http.Request, in *admitted, thoughts *bool) *dispatch.Call {
	if c := rawjson.Member(in.body, "contents"); len(c) == 0 || c[0] != '[' {
		s.refuse(w, geminiFront, http.StatusBadRequest, "invalid_request", "contents: must be a list of Content objects")
		return nil
	}
	call := &dispatch.Call{Model: in.model, Stream: in.stream, API: "gemini",
		Native: &dispatch.Native{API: dispatch.APIGenerateContent, Body: in.body}}
	if !s.begin(w, r, geminiFront, in, call) {
		return nil
	}
	if call.Stream {
		call.Out = newGeminiOutput(w, call.ID, call.Model, thoughts)
	}
	call.Native.Translate = func() ([]byte, error) {
		tr, err := gemini.Translate(in.body, in.model, in.stream)
		*thoughts = tr.Thoughts
		return tr.Body, err
	}
	return call
}

// geminiCount answers :countTokens: exactly, from the route's first
// target when it is Gemini (one attempt, no failover); otherwise, or when
// that count fails but for the request's own fault, with gemini.Estimate.
func (s *Server) geminiCount(w http.ResponseWriter, r *http.Request) {
	in := s.admit(w, r, geminiCountFront)
	if in == nil {
		return
	}
	defer s.end(in)
	st := in.st
	if st.Dispatcher.ServesNative(in.model, dispatch.APIGeminiCountTokens) {
		if s.refused(w, r, geminiCountExact, in) {
			return
		}
		call := &dispatch.Call{Model: in.model, API: "gemini",
			Native: &dispatch.Native{API: dispatch.APIGeminiCountTokens, Body: in.body,
				Untranslated: errors.New("countTokens is counted by Gemini targets only")}}
		if s.exactCount(w, r, geminiCountExact, in, call) {
			return
		}
	}
	var (
		n   int
		err error
	)
	if !s.translate(w, geminiCountFront, in, func() int { n, err = gemini.Estimate(in.body); return 0 }) {
		return
	}
	if err != nil {
		s.refuse(w, geminiCountFront, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	requestID(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.Write(gemini.CountTokensBody(n))
}
