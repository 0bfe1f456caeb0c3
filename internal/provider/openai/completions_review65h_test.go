package openai

import (
	"strings"
	"testing"
)

// Review 65h: a Completions chunk's content is its choice's "text", a
// string: every client of the API reads choices[i].text as one (the openai
// SDKs concatenate it, LangChain's OpenAI LLM appends it). A chat chunk
// whose delta content is not a string is malformed and never relayed;
// a Completions chunk whose text was a number or an object was relayed as
// it came, and its finish_reason made the stream an answer, recorded ok.
func TestReview65hCompletionsTextThatIsNotAStringIsMalformed(t *testing.T) {
	for _, text := range []string{`123`, `{"x":"hi"}`, `["hi"]`, `true`} {
		for _, order := range []string{"text first", "text last"} {
			choice := `"text":` + text + `,"index":0,"logprobs":null,"finish_reason":null`
			if order == "text last" {
				choice = `"index":0,"logprobs":null,"finish_reason":null,"text":` + text
			}
			data := `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{` + choice + `}]}`
			st := completionsStream(strings.NewReader("data: " + data + "\n\n"))
			ev, err := st.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ev.Malformed {
				t.Errorf("%s (%s): relayed (content %v), want malformed", text, order, ev.Content)
			}
		}
	}
	// A string, empty or not, and a null, read as before.
	for text, content := range map[string]bool{`"hi"`: true, `""`: false, `null`: false} {
		data := `{"choices":[{"text":` + text + `,"index":0,"finish_reason":null}]}`
		ev, err := completionsStream(strings.NewReader("data: " + data + "\n\n")).Next()
		if err != nil || ev.Malformed || ev.Content != content {
			t.Errorf("%s: malformed %v content %v (err %v), want content %v", text, ev.Malformed, ev.Content, err, content)
		}
	}
}
