package openai

import (
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// The relay relies on a stream's events saying how many choices finished
// (a request for n choices is finished only by n of them) and on a finish
// reason said again, alone, for a finished choice being no content: it
// adds nothing, so the answer did not go on after its finish (OpenRouter
// repeats finish_reason "length" on an empty chunk before an error chunk,
// corpus openrouter-stream-minimax-token-limit-reached-after-length-200).
// A choice that opens and finishes in one chunk, after the others
// finished, counts too. Both paths of the chunk reader agree: the scan, and the decode that a
// member named only by case folding sends the chunk to.
func TestReview40eFinishedChoicesAndARepeatedFinish(t *testing.T) {
	for _, finish := range []string{`"finish_reason"`, `"Finish_reason"`} {
		c := func(index int, delta, reason string) string {
			return `data: {"choices":[{"index":` + string(rune('0'+index)) + `,"delta":` + delta + `,` + finish + `:` + reason + `}]}` + "\n\n"
		}
		body := c(0, `{"content":"a"}`, "null") + c(0, `{}`, `"length"`) + c(0, `{"content":""}`, `"length"`) +
			c(1, `{"content":"b"}`, "null") + c(1, `{}`, `"stop"`) + c(2, `{"content":"c"}`, `"stop"`) +
			c(0, `{"content":"more"}`, `"length"`)
		s := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
		var got []provider.Event
		for {
			ev, err := s.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ev)
		}
		if len(got) != 7 {
			t.Fatalf("%s: %d events", finish, len(got))
		}
		want := []struct {
			content, finished, reopened bool
			choices                     int
		}{{true, false, false, 0}, {true, true, false, 1}, {false, false, false, 0}, {true, false, true, 0}, {true, true, false, 2}, {true, true, false, 3}, {true, false, false, 0}}
		for i, w := range want {
			ev := got[i]
			if ev.Content != w.content || ev.Finished != w.finished || ev.Reopened != w.reopened || ev.Choices != w.choices {
				t.Errorf("%s: event %d: content %v finished %v reopened %v choices %d; want %+v", finish, i, ev.Content, ev.Finished, ev.Reopened, ev.Choices, w)
			}
		}
	}
}
