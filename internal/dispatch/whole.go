package dispatch

import (
	"io"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// evUntranslatable is the evidence of a whole answer the call's door could
// not express (Call.Whole): the model's output, not the upstream's words.
const evUntranslatable = "answer:untranslatable"

// whole is a whole canonical answer in the call's door's own words
// (Call.Whole; out itself without one). When the door cannot express it,
// o fails as unknown, and the walk moves on. One batch of an embeddings
// attempt made in several calls is not the answer: the joined list is
// (embedbatch.go).
func (w *walk) whole(out []byte, o *outcome) ([]byte, error) {
	if w.call.Whole == nil || w.call.Op == OpEmbeddings && w.call.emb.part != nil {
		return out, nil
	}
	b, err := w.call.Whole(out)
	if err != nil {
		o.failWith(classify.Verdict{Class: classify.Unknown, Evidence: evUntranslatable},
			"the upstream's answer could not be translated: "+err.Error())
	}
	return b, err
}

// streamWhole sends a whole answer to a client that asked for a stream.
func (w *walk) streamWhole(e *endpointRT, body []byte, o *outcome) {
	chunks, usage, err := chat.WholeChunks(body)
	if err != nil {
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return
	}
	o.usage = parseUsage(usage) // read as a whole answer sent whole is (usageOf)
	if o.usage == nil && w.call.Metered {
		o.delivered = answerOutputEstimate(body, w.call.Body) // as for a whole answer sent whole (plain)
	}
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

// readAtMost is io.ReadAll(io.LimitReader(r, max)), the same bytes and
// error, with its buffer sized from size (the answer's Content-Length, -1
// when unknown) instead of grown from 512 bytes: a whole answer is read
// into one allocation, not four or five, and no LimitReader is made. A
// declared size is trusted up to maxPresize only: an upstream that
// announces 60 MiB and sends nothing holds no more than that.
// TestReadAtMostIsReadAllOfLimitReader holds it to the original.
func readAtMost(r io.Reader, max, size int64) ([]byte, error) {
	c := 512
	if size >= 0 && size < max {
		c = int(min(size+1, maxPresize)) // +1: room for the read that finds the end
	}
	b := make([]byte, 0, c)
	for {
		if int64(len(b)) >= max {
			return b, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := b[len(b):cap(b)]
		if left := max - int64(len(b)); int64(len(room)) > left {
			room = room[:left]
		}
		n, err := r.Read(room)
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
	}
}

// maxPresize bounds the buffer readAtMost makes before the bytes arrive.
const maxPresize = 256 << 10
