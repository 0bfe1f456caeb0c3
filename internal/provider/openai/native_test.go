package openai

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// nativeEvents reads a whole Responses stream: each event's kind (error,
// content, done), its data, and how many chunks it carries.
func nativeEvents(t *testing.T, stream string) []string {
	t.Helper()
	s := Adapter{Responses: true}.NativeStream("", strings.NewReader(stream), provider.Endpoint{})
	var got []string
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		kind := "event"
		switch {
		case ev.Error:
			kind = "error"
		case ev.Done:
			kind = "done"
		case ev.Content:
			kind = "content"
		}
		got = append(got, kind+" "+string(ev.Raw)+" "+strings.Repeat("+", len(ev.Chunks)))
	}
}

const (
	bareFailed  = `{"type":"response.failed","response":{"id":"r","status":"failed","error":null}}`
	fullFailed  = `{"type":"response.failed","response":{"id":"r","status":"failed","error":{"code":"server_error","message":"boom"}}}`
	errorReason = `{"type":"error","error":{"type":"invalid_request_error","code":"content_policy_violation","message":"filtered"}}`
	created     = `{"type":"response.created","response":{"id":"r","status":"in_progress","error":null}}`
	delta       = `{"type":"response.output_text.delta","delta":"hi"}`
)

func frames(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

// A response.failed that says nothing is read with the error event after
// it: the reason classifies the attempt (the event as read, its chunks
// those of any error event).
func TestNativeStreamReadsTheReasonAfterABareFailure(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		want         []string
	}{
		{"reason after a bare failure", frames(created, bareFailed, errorReason),
			[]string{"event " + created + " +", "error " + errorReason + " +"}},
		{"named error event after it", frames(created, bareFailed) + "event: error\ndata: " + errorReason + "\n\n",
			[]string{"event " + created + " +", "error " + errorReason + " "}},
		// Not merged: a failure that says why, a bare failure at the end or
		// before something else (which still comes, in order).
		{"failure with its error", frames(fullFailed, errorReason),
			[]string{"error " + fullFailed + " +", "error " + errorReason + " +"}},
		{"bare failure last", frames(created, bareFailed),
			[]string{"event " + created + " +", "error " + bareFailed + " +"}},
		{"bare failure, then content", frames(bareFailed, delta),
			[]string{"error " + bareFailed + " +", "content " + delta + " +"}},
		{"two bare failures", frames(bareFailed, bareFailed),
			[]string{"error " + bareFailed + " +", "error " + bareFailed + " +"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := nativeEvents(t, c.stream)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
