package main

import (
	"bytes"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/sse"
)

// classifyAnswer classifies r as the gateway would meet it. A 2xx stream
// given whole (--stream, "stream": true) is read event by event, as
// dispatch reads one: each event's data is classified alone, an `event:
// error` that proves nothing else is unknown, and the first event that
// fails decides; a stream none of whose events fails is a success. Given
// whole to the classifier, only its first MaxBody bytes were read: an error
// event after 4 KiB of content read as a success (hunt 36e, a llama.cpp
// stream ending "Context size has been exceeded."). A body that holds no
// SSE event (a bare chunk) is classified as given.
func classifyAnswer(c *classify.Classifier, r classify.Response) classify.Verdict {
	if !r.Stream || r.Status/100 != 2 {
		return c.Classify(r)
	}
	rd := sse.NewReader(bytes.NewReader(r.Body), 0)
	var first *classify.Verdict
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		data := bytes.TrimSpace(ev.Data)
		isErr := ev.Name == "error"
		if len(data) == 0 && !isErr {
			continue
		}
		one := r
		one.Body = data
		v := c.Classify(one)
		if isErr && !v.Failed {
			v = classify.Verdict{Failed: true, Class: classify.Unknown, Evidence: "stream:error event"}
		}
		if v.Failed {
			return v
		}
		if first == nil {
			first = &v
		}
	}
	if first == nil { // no event: a bare chunk, or not SSE at all
		return c.Classify(r)
	}
	return *first
}
