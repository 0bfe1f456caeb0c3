package openai

import (
	"github.com/detour-llm/detour/internal/testutil"
	"reflect"
	"testing"
)

// chunkCases are chunks the scan must read as encoding/json does, among
// them shapes it must leave to decode.
var chunkCases = []string{
	`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"Hel\"lo\n"},"finish_reason":null}]}`,
	`{"id":"c","choices":[{"index":1,"delta":{},"finish_reason":"stop"}],"usage":null}`,
	`{"id":"c","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":2}}}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[ ]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[]}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning":"x","images":{}}}]}`,
	`{"choices":[{"index":0,"delta":{"audio":{"id":"a"}}}]}`,
	`{"choices":[{"index":0,"delta":{"reasoning_details":null,"refusal":"no"}}]}`,
	`{"choices":[{"index":0,"delta":{"function_call":{"name":"f"}}},{"index":2,"delta":{"content":"y"}}]}`,
	`{"error":{"message":"overloaded","type":"server_error"}}`,
	`{"error":null,"choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"error":{"message":"x"},"choices":5}`, // a type error wins over the error
	`{"choices":[{"index":0,"finish_reason":"\u0000"}]}`,
	`{"choices":[{"index":0,"finish_reason":"s"},{"index":1,"delta":{"content":"b"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"error":{}}`,
	`{"choices":[{"index":-3,"delta":null,"finish_reason":""}]}`,
	// A choice that failed (OpenRouter): its own error object, or
	// finish_reason "error"; a null error is none.
	`{"id":"gen-1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream error from provider"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"},"error":{"message":"x"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"},"error":null}]}`,
	`{"choices":[{"index":0,"finish_reason":"error"}]}`,
	`{"choices":[{"index":0,"finish_reason":"\u0065rror"}]}`,
	`{"choices":[{"index":0,"finish_reason":"errors"}]}`,
	// Left to decode, or malformed.
	`{"Choices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"INDEX":2,"delta":{"Content":"a"}}]}`,
	`{"ch\u006fices":[{"index":0,"delta":{"content":"a"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"a"}}],"choices":[]}`,
	`{"choices":[{"index":0,"index":1,"delta":{"content":"a","content":""}}]}`,
	`{"choices":[{"index":1.0}]}`,
	`{"choices":[{"index":1e2}]}`,
	`{"choices":[{"index":"1"}]}`,
	`{"choices":[{"index":99999999999999999999}]}`,
	`{"choices":[null,{"index":3}]}`,
	`{"choices":[{"index":0,"delta":{"content":5}}]}`,
	`{"choices":[{"index":0,"delta":[]}]}`,
	`{"choices":{"index":0}}`,
	`{"choices":[{"index":0,"finish_reason":true}]}`,
	`{"usage":{"total_tokens":"7"}}`,
	`{"usage":[1]}`,
	`{"uſage":{"total_tokens":7}}`,
	`{"choices":[{"index":0}]`,
	`[1,2]`,
	`null`,
	`"x"`,
	`{}`,
	``,
}

// TestChunkScanReadsAsDecode: the scan and encoding/json read every chunk
// alike; a difference would change what fails over and what commits.
func TestChunkScanReadsAsDecode(t *testing.T) {
	for _, c := range chunkCases {
		if got, want := scanned([]byte(c)), decoded([]byte(c)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s\n read %+v\n decode %+v", c, got, want)
		}
	}
}

// FuzzChunkScan looks for a chunk the scan reads otherwise than
// encoding/json.
func FuzzChunkScan(f *testing.F) {
	for _, c := range chunkCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if got, want := scanned([]byte(c)), decoded([]byte(c)); !reflect.DeepEqual(got, want) {
			t.Errorf("%q\n read %+v\n decode %+v", c, got, want)
		}
	})
}

// TestChunkScanDoesNotAllocate: a content chunk is read without an
// allocation (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
func TestChunkScanDoesNotAllocate(t *testing.T) {
	if testutil.Race {
		t.Skip("the race detector allocates")
	}
	data := []byte(chunkCases[1])
	var f facts
	f.read(data)
	if n := testing.AllocsPerRun(100, func() { f.read(data) }); n != 0 {
		t.Fatalf("reading a chunk allocates %.0f times, want 0", n)
	}
	if f.malformed || len(f.choices) != 1 || !f.choices[0].content {
		t.Fatalf("read %+v", f)
	}
}

func scanned(data []byte) facts {
	var f facts
	f.read(data)
	return norm(f)
}

func decoded(data []byte) facts {
	var f facts
	f.decode(data)
	return norm(f)
}

func norm(f facts) facts {
	if len(f.choices) == 0 {
		f.choices = nil
	}
	return f
}

// TestChunkChoiceError: a choice that failed makes the chunk an error (the
// stream fails over, or is cut), read alike by the scan and by decode; a
// null error member and another finish reason do not (review 33c).
func TestChunkChoiceError(t *testing.T) {
	for c, want := range map[string]bool{
		`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error","error":{"code":502,"message":"Upstream error"}}]}`: true,
		`{"choices":[{"index":0,"delta":{"content":"a"},"error":{"message":"x"}}]}`:                                                true,
		`{"choices":[{"index":0,"finish_reason":"error"}]}`:                                                                        true,
		`{"choices":[{"index":0,"finish_reason":"\u0065rror"}]}`:                                                                   true,
		`{"choices":[{"index":0,"delta":{"content":"a"},"error":null}]}`:                                                           false,
		`{"choices":[{"index":0,"finish_reason":"stop"}]}`:                                                                         false,
	} {
		var f facts
		if f.read([]byte(c)); f.error != want {
			t.Errorf("%s: error %v, want %v", c, f.error, want)
		}
		if d := decoded([]byte(c)); d.error != want {
			t.Errorf("%s: decode says error %v, want %v", c, d.error, want)
		}
	}
}
