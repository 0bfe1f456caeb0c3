package openai

import (
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// malformed counts the events of evs skipped as malformed.
func malformed(evs []provider.Event) int {
	n := 0
	for _, ev := range evs {
		if ev.Malformed {
			n++
		}
	}
	return n
}

// An upstream picks the choice indices: a stream whose every chunk opens a
// new one keeps at most provider.MaxParts of them, the rest skipped as
// malformed (review 30b: two million such chunks held 71 MB before).
func TestChoicesOpenedAreBounded(t *testing.T) {
	const extra = 300
	var b strings.Builder
	for i := range provider.MaxParts + extra {
		b.WriteString(`data: {"object":"chat.completion.chunk","choices":[{"index":` + strconv.Itoa(i) + `,"delta":{"content":"x"}}]}` + "\n\n")
	}
	st := Adapter{}.Stream(strings.NewReader(b.String()), provider.Endpoint{})
	skipped := malformed(adaptertest.Events(t, st))
	if n := len(st.(*stream).open); n > provider.MaxParts {
		t.Errorf("%d choices kept, want at most %d", n, provider.MaxParts)
	}
	if skipped != extra {
		t.Errorf("%d chunks skipped as malformed, want the %d past the bound", skipped, extra)
	}
}

// Choices finish one by one: one that opens after the others finished makes
// the answer incomplete again (Reopened), until it finishes too (review
// 30b: a stream cut inside choice 1 after choice 0 finished looked whole).
func TestChoiceOpenedAfterTheOthersFinishedReopens(t *testing.T) {
	const head = `data: {"object":"chat.completion.chunk","choices":[`
	body := head + `{"index":0,"delta":{"content":"A"},"finish_reason":null}]}` + "\n\n" +
		head + `{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		head + `{"index":1,"delta":{"content":"B"},"finish_reason":null}]}` + "\n\n" +
		head + `{"index":1,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	evs := adaptertest.Events(t, Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{}))
	var got []string
	for _, ev := range evs {
		got = append(got, strconv.FormatBool(ev.Finished)+"/"+strconv.FormatBool(ev.Reopened))
	}
	want := "false/false true/false false/true true/false"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("finished/reopened per event: %s, want %s", g, want)
	}
}
