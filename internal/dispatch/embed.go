package dispatch

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Operations other than chat (docs/doors.md, "Embeddings"). An embeddings
// call walks the same plan as a chat call: the same table, health, budgets,
// decision record and metrics. What differs is the upstream call (the
// adapter's provider.Embedder instead of its chat methods) and that it
// never streams. An endpoint whose adapter has no Embedder (the anthropic
// dialect) is skipped with a recorded reason; a route with no endpoint that
// serves the operation is the front's 400 (Dispatcher.Serves), so a walk
// never ends with nothing tried for that reason alone.

// Op is what a Call asks of its upstreams. The zero value is OpChat.
type Op uint8

// The operations.
const (
	OpChat       Op = iota // a chat completion (canonical chat JSON)
	OpEmbeddings           // an OpenAI embeddings request, never streamed
)

// Serves reports whether the route or target model has at least one
// endpoint that can serve op among its targets (the tail, used only after
// a failure, does not count).
func (d *Dispatcher) Serves(model string, op Op) bool {
	r := d.routes[model]
	if r == nil {
		return false
	}
	for _, t := range r.targets {
		for _, e := range t.endpoints {
			if servesOp(e, op) {
				return true
			}
		}
	}
	return false
}

// served returns the targets of ts that have an endpoint able to serve
// the call's operation, and records the endpoints of the others as
// skipped: such a target is not part of this call's plan at all.
func (w *walk) served(ts []*targetRT) []*targetRT {
	if w.call.Op == OpChat {
		return ts
	}
	out := make([]*targetRT, 0, len(ts))
	for _, t := range ts {
		ok := false
		for _, e := range t.endpoints {
			ok = ok || servesOp(e, w.call.Op)
		}
		if ok {
			out = append(out, t)
			continue
		}
		for _, e := range t.endpoints {
			w.unserved(e)
		}
	}
	return out
}

// servesOp reports whether e's adapter can serve op.
func servesOp(e *endpointRT, op Op) bool {
	if op == OpEmbeddings {
		_, ok := e.prov.adapter.(provider.Embedder)
		return ok
	}
	return true
}

// unserved skips e, with the reason in the record, when its adapter cannot
// serve the call's operation, and reports whether it did.
func (w *walk) unserved(e *endpointRT) bool {
	if servesOp(e, w.call.Op) {
		return false
	}
	w.skip(e, "dialect "+string(e.prov.cfg.Dialect)+" serves no embeddings")
	return true
}

// embedRequest builds the upstream request of one embeddings attempt at e
// (newRequest calls it for OpEmbeddings): a translation, for a dialect
// other than OpenAI's, within a reservation of its cost (embedCost).
func (w *walk) embedRequest(ctx context.Context, e *endpointRT, o *outcome) (*http.Request, error) {
	em, ok := e.prov.adapter.(provider.Embedder)
	if !ok { // unserved skips such endpoints; never reached
		return nil, errors.New("dialect " + string(e.prov.cfg.Dialect) + " serves no embeddings")
	}
	return w.translated(o, w.embedCost(e), func() (*http.Request, error) {
		// Without encoding_format where e refused it (embedformat.go): the
		// parse keeps Base64, so the floats it answers are encoded for the
		// client as it asked.
		return em.NewEmbeddingsRequest(ctx, e.ep, w.withoutDropped(e, w.embeddingsFor(e)))
	})
}

// embedCost is what building an embeddings attempt's calls at e may cost:
// nothing counted apart for an OpenAI-dialect endpoint (the client's body,
// as for chat), EmbeddingsCost for one that translates it.
func (w *walk) embedCost(e *endpointRT) int64 {
	if e.prov.cfg.Dialect == classify.OpenAI {
		return 0
	}
	return EmbeddingsCost(w.call.Body)
}

// decode turns a 2xx upstream body from e into the canonical answer: a
// chat.completion, or an OpenAI embeddings list.
// usageReader is an adapter that reads a whole answer's "usage" member in
// the pass that checks it (openai.Adapter.ResponseUsage).
type usageReader interface {
	ResponseUsage(body []byte, ep provider.Endpoint) (out, usage []byte, err error)
}

// decodeWhole is decode, and the usage of its answer: read in the same pass
// where the adapter can, else from the answer decode returns.
func (w *walk) decodeWhole(e *endpointRT, body []byte) ([]byte, *provider.Usage, error) {
	if ur, ok := e.prov.adapter.(usageReader); ok && w.call.Op != OpEmbeddings {
		out, usage, err := ur.ResponseUsage(body, e.ep)
		return out, parseUsage(usage), err
	}
	out, err := w.decode(e, body)
	if err != nil {
		return nil, nil, err
	}
	if w.call.Op == OpEmbeddings && e.prov.cfg.Dialect == classify.Gemini {
		// Gemini counts no tokens for embeddings: the usage in out is
		// zeros written for the client, not a count, so the cost is
		// unknown, never a silent $0 (docs/config.md, "Usage and cost").
		return out, nil, nil
	}
	return out, usageOf(out), nil
}

func (w *walk) decode(e *endpointRT, body []byte) ([]byte, error) {
	if w.call.Op != OpEmbeddings {
		return e.prov.adapter.Response(body, e.ep)
	}
	em, ok := e.prov.adapter.(provider.Embedder)
	if !ok {
		return nil, errors.New("dialect " + string(e.prov.cfg.Dialect) + " serves no embeddings")
	}
	return em.EmbeddingsResponse(w.embeddingsFor(e), body, e.ep)
}

// embedCall is an embeddings call's request, worked out once per call: the
// client's body parsed (nil when it does not parse: an adapter that needs
// it then refuses Body itself), and the request the adapters read, built
// for one dimensions value (a route's targets all declare the same:
// docs/config.md, targets: dimensions).
type embedCall struct {
	read   bool // parsed and err are set
	parsed *provider.Embeddings
	err    error
	named  bool // the client sent "dimensions" (even null): it is never added
	built  bool // req is set, for dims
	dims   int
	req    provider.Request
	// part is the batch being sent while a batched attempt makes its
	// calls (embedbatch.go): the request its answer is decoded for.
	part *provider.Request
	// kept is what a batched attempt that failed had answered, for a
	// retry at the same endpoint to go on from (embedbatch.go).
	kept keptBatches
}

// CheckEmbeddings checks c's Body, an OpenAI embeddings body, the way the
// adapters will read it: "input" a string, a list of strings or token
// arrays; "dimensions" a positive integer; "encoding_format" float or
// base64. The error, when there is one, is for the client (a 400). The
// body is parsed once per call: the adapters read this parse, which the
// call holds until it ends: held is about its size in bytes (its texts).
// Parsing may cost EmbeddingsCost(c.Body) while it runs.
func (c *Call) CheckEmbeddings() (held int, err error) {
	e := c.embeddings()
	if e.err != nil {
		return 0, e.err
	}
	for _, t := range e.parsed.Texts {
		held += len(t) + 16 // a string's header
	}
	return held, nil
}

func (c *Call) embeddings() *embedCall {
	if e := &c.emb; !e.read {
		e.read = true
		e.parsed, e.err = provider.ParseEmbeddings(c.Body)
		e.named = rawjson.Member(c.Body, "dimensions") != nil
	}
	return &c.emb
}

// embeddingsFor is the embeddings request for e: the client's, with the
// target's declared dimensions added when the client sent none
// (docs/config.md, targets: dimensions), so every target of a route
// answers vectors of one size. It is built once per call, and carries the
// call's one parse of the body.
func (w *walk) embeddingsFor(e *endpointRT) *provider.Request {
	c := w.call.embeddings()
	if c.part != nil {
		return c.part
	}
	n := e.target.cfg.Dimensions
	if n <= 0 || c.named {
		n = 0 // the client's own request
	}
	if c.built && c.dims == n {
		return &c.req
	}
	c.built, c.dims = true, n
	if n == 0 {
		c.req = provider.Request{Body: w.call.Body, Embeddings: c.parsed}
		return &c.req
	}
	c.req = provider.Request{Body: rawjson.WithFirst(w.call.Body, "dimensions", strconv.AppendInt(nil, int64(n), 10))}
	if c.parsed != nil {
		p := *c.parsed
		p.Dimensions = n
		c.req.Embeddings = &p
	}
	return &c.req
}
