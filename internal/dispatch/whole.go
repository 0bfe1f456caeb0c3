package dispatch

import (
	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// streamWhole sends a whole answer to a client that asked for a stream.
func (w *walk) streamWhole(e *endpointRT, body []byte, o *outcome) {
	chunks, usage, err := chat.WholeChunks(body)
	if err != nil {
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return
	}
	o.usage = usage
	if usage != nil && !w.askedUsage() {
		chunks = chunks[:len(chunks)-1] // the usage chunk: the client did not ask for it
	}
	if !w.commit(e, nil, o) {
		return
	}
	for _, c := range chunks {
		if !w.write(o, c) {
			return
		}
	}
	o.ok = w.end(o)
}
