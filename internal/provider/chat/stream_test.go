package chat_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// chunkCases are chunks the scan reads (the shapes of the doors' stream
// tests and fuzz seeds, and odd ones) as json.Unmarshal does.
var chunkCases = []string{
	// The shapes of the doors' stream tests (the Responses door's OpenAI
	// answer has these, and usage with prompt_tokens_details alone), and
	// odd ones.
	`{"choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":4}}}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"reasoning_content":"Hmm"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi <b>\n\"q\" \u00e9 \ud83d\ude00"},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":3}}}`,
	`{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop","stop_reason":"END"}]}`,
	`{"choices":[{"index":0,"finish_reason":"stop","stop_reason":null}]}`,
	`{"choices":[{"index":0,"finish_reason":"stop","stop_reason":{"a":[1]}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":3,"function":{"arguments":"{"}}]},"finish_reason":"stop"}]}`,
	`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"r","refusal":"no"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"r"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":null,"reasoning":null}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":null,"content":null}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":null,"type":null,"function":null}]}}]}`,
	`{"choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":null,"usage":null,"id":null,"model":null}`,
	`{"choices":[{"index":null,"delta":null,"finish_reason":null}]}`,
	`{"usage":{"prompt_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":null}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":null},"completion_tokens_details":{"reasoning_tokens":null}}}`,
	` { "id" : "x" , "choices" : [ { "index" : 0 , "delta" : { "content" : "sp" } } ] } `,
	"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\"}}]}",
	`{"choices":[{"index":-3,"delta":{"content":"neg"}}]}`,
	`{}`,
}

// usageLeftCases are usage objects provider.ParseUsage leaves to
// json.Unmarshal (a key in another case, a repeated key): the chunk's scan
// goes on, with the usage read as json.Unmarshal reads it (ReadUsage).
var usageLeftCases = []string{
	`{"usage":{"prompt_tokens":1,"Prompt_Tokens":2}}`,
	`{"usage":{"prompt_tokens_details":{"cached_tokens":1,"cached_tokens":2}}}`,
}

// leftCases are chunks the scan leaves to json.Unmarshal (a key in another
// case or escaped, a repeated key, a value of another type, a number that
// is not a plain integer, a null element), and what is not a chunk.
var leftCases = []string{
	`{"Choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"INDEX":2,"delta":{"Content":"a"}}]}`,
	`{"ch\u006fices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[{"finish_reason":"stop"}]}`,
	`{"choices":[{"index":0,"index":1,"delta":{"content":"a","content":""}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"a","name":"b"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"Function":{"Arguments":"{}"}}]}}]}`,
	`{"uſage":{"total_tokens":7}}`,
	`{"choices":[{"index":1.0}]}`,
	`{"choices":[{"index":1e2}]}`,
	`{"choices":[{"index":"1"}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"choices":[null,{"index":3,"delta":{"content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[null]}}]}`,
	`{"choices":[{"index":0,"delta":{"content":5}}]}`,
	`{"choices":[{"index":0,"delta":[]}]}`,
	`{"choices":{"index":0}}`,
	`{"choices":[{"index":0,"finish_reason":true}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":{"index":0}}}]}`,
	`{"id":5}`,
	`{"id":5,"choices":[{"index":0,"stop_reason":[],"delta":{"reasoning":7,"content":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":7}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_content":{"text":"r"}}}]}`,
	`{"choices":[{"index":0,"delta":{"Reasoning_Content":"r","REASONING":"s"}}]}`,
	`{"model":["m"]}`,
	`{"usage":{"total_tokens":"7"}}`,
	`{"usage":[1]}`,
	`{"choices":[{"index":0}]`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}]}x`,
	`[1,2]`, `null`, `"x"`, `7`, ``,
}

// adapterChunkCases are the canonical chunks the Anthropic and Gemini
// adapters make of their recorded streams.
func adapterChunkCases(t testing.TB) []string {
	var out []string
	for _, dir := range []struct {
		glob string
		a    provider.Adapter
	}{
		{"../../provider/anthropic/testdata/stream/*.sse", anthropic.Adapter{}},
		{"../../provider/gemini/testdata/stream/*.sse", gemini.Adapter{}},
	} {
		files, err := filepath.Glob(dir.glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir.glob, err)
		}
		for _, f := range files {
			for _, c := range adapterChunksLenient(t, dir.a, f) {
				out = append(out, string(c))
			}
		}
	}
	return out
}

// TestReadStreamChunkReadsAsUnmarshal: the scan and json.Unmarshal read
// every chunk alike, so the frames a door's client gets are the same.
func TestReadStreamChunkReadsAsUnmarshal(t *testing.T) {
	scanned := append(append(append([]string(nil), chunkCases...), adapterChunkCases(t)...), usageLeftCases...)
	for _, c := range scanned {
		checkReadChunk(t, []byte(c))
		if !chat.ScanStreamChunk([]byte(c), &chat.StreamChunk{}) {
			t.Errorf("%s: left to json.Unmarshal", c)
		}
	}
	for _, c := range leftCases {
		checkReadChunk(t, []byte(c))
		if chat.ScanStreamChunk([]byte(c), &chat.StreamChunk{}) {
			t.Errorf("%s: read by the scan", c)
		}
	}
}

// idCases are chunks read one after the other into one StreamChunk: the
// previous id is kept only where the next is the same string (not escaped,
// not invalid UTF-8), and never outlives a chunk without an id.
var idCases = []string{
	`{"id":"a"}`, `{"id":"a"}`, `{"id":"\u0061"}`, `{"id":"a\\b"}`, `{"id":"a\\b"}`,
	`{"id":"a\\\\b"}`, `{"id":"a\\b"}`,
	"{\"id\":\"\xff\"}", "{\"id\":\"\xff\"}", `{"id":"\ufffd"}`, `{"id":"\ufffd"}`, `{}`,
	`{"id":"a"}`, `{"id":null}`, `{"id":"a"}`, `{"id":""}`, `{"id":"a"}`, `{"ID":"a"}`, `{"id":"a"}`, `{"id":5}`, `{"id":"a"}`,
	`{"id":"a","id":"a"}`, `{"id":"a"}`, `{"choices":[{"index":0,"delta":{"content":"x"}}]}`,
}

// TestReadStreamChunkReusesChunk: a stream's chunks read into one
// StreamChunk, as the doors read them, each read as json.Unmarshal reads
// it into a zero StreamChunk.
func TestReadStreamChunkReusesChunk(t *testing.T) {
	var c chat.StreamChunk
	all := append(append(append(append([]string(nil), idCases...), chunkCases...), leftCases...), adapterChunkCases(t)...)
	for _, data := range all {
		checkReadInto(t, &c, []byte(data))
	}
}

// FuzzReadStreamChunk looks for a chunk the scan reads otherwise than
// json.Unmarshal, read alone or after another chunk into the same
// StreamChunk.
func FuzzReadStreamChunk(f *testing.F) {
	for _, c := range append(append(chunkCases, leftCases...), idCases...) {
		f.Add([]byte(`{"id":"a"}`), []byte(c))
	}
	for _, c := range adapterChunkCases(f) {
		f.Add([]byte(c), []byte(c))
	}
	f.Fuzz(func(t *testing.T, prev, c []byte) {
		checkReadChunk(t, c)
		var got chat.StreamChunk
		_ = chat.ReadStreamChunk(prev, &got)
		checkReadInto(t, &got, c)
	})
}

func checkReadChunk(t *testing.T, c []byte) {
	t.Helper()
	checkReadInto(t, new(chat.StreamChunk), c)
}

// checkReadInto reads c into got, whatever got holds, and compares it with
// json.Unmarshal's reading into a zero StreamChunk.
func checkReadInto(t *testing.T, got *chat.StreamChunk, c []byte) {
	t.Helper()
	var want chat.StreamChunk
	err := chat.ReadStreamChunk(c, got)
	wantErr := json.Unmarshal(c, &want)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%q: ReadStreamChunk error %v, json.Unmarshal %v", c, err, wantErr)
	}
	if err == nil && !reflect.DeepEqual(*got, want) {
		t.Fatalf("%q\n read      %+v\n unmarshal %+v", c, *got, want)
	}
}

// adapterChunksLenient runs an upstream SSE transcript through a real
// adapter and returns the canonical chunks it makes, those before an error
// for transcripts that end in one.
func adapterChunksLenient(t testing.TB, a provider.Adapter, path string) [][]byte {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Stream(bytes.NewReader(body), provider.Endpoint{Model: "m"})
	var out [][]byte
	for {
		ev, err := s.Next()
		if err != nil {
			return out
		}
		for _, c := range ev.Chunks {
			out = append(out, bytes.Clone(c))
		}
	}
}
