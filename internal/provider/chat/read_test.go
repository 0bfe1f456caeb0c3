package chat

import (
	"encoding/json"
	"reflect"
	"testing"
)

// readCases are "tool_calls" and "usage" values (and values of neither
// shape) the readers must read as json.Unmarshal does, or leave to it.
var readCases = []string{
	`[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]`,
	`[{"index":1,"function":{"arguments":"{\"a\":\"\u00e9\"}"}},{"index":2}]`,
	`[{"index":null,"id":null,"type":null,"function":null}]`, `[]`, `null`, `[null]`,
	`[{"index":0,"index":1}]`, `[{"Index":0}]`, `[{"function":{"name":"a","Name":"b"}}]`, `[{"index":1.5}]`,
	`[{"function":[]}]`, `[5]`, `{"index":0}`,
	`{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7,"prompt_tokens_details":{"cached_tokens":2,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":1}}`,
	`{"prompt_tokens":null,"prompt_tokens_details":null,"completion_tokens_details":null}`,
	`{"prompt_tokens_details":{"cached_tokens":null},"completion_tokens_details":{}}`,
	`{"prompt_tokens":1,"prompt_tokens":2}`, `{"PROMPT_TOKENS":1}`, `{"prompt_tokens":"1"}`,
	`{"completion_tokens_details":{"reasoning_tokens":1e2}}`, `{"prompt_tokens_details":[]}`, `7`, `"x"`,
	// Cache writes, as OpenRouter and LiteLLM name them.
	`{"prompt_tokens":194,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"total_tokens":196}`,
	`{"prompt_tokens":2006,"prompt_tokens_details":{"cached_tokens":1920},"cache_creation_input_tokens":86}`,
	`{"prompt_tokens_details":{"cache_write_tokens":1,"cache_write_tokens":2}}`, `{"cache_creation_input_tokens":null}`,
	`{"prompt_tokens_details":{"cache_write_tokens":"1"}}`, `{"Cache_Creation_Input_Tokens":1}`,
	`{"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":1000,"cache_creation_token_details":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}}}`,
	`{"prompt_tokens_details":{"cache_creation_token_details":null}}`, `{"prompt_tokens_details":{"cache_creation_token_details":"1"}}`,
	`{"prompt_tokens_details":{"cached_tokens":80,"cache_creation_tokens":30}}`, `{"prompt_tokens_details":{"cache_creation_tokens":"30"}}`,
	`{"prompt_tokens_details":{"cache_creation_tokens":30.0}}`, `{"prompt_tokens_details":{"cache_creation_tokens":1e30}}`,
}

// TestReadersReadAsUnmarshal: ReadToolCalls and ReadUsage read as
// json.Unmarshal does whatever they report sure about.
func TestReadersReadAsUnmarshal(t *testing.T) {
	for _, c := range readCases {
		checkReaders(t, []byte(c))
	}
}

func FuzzReaders(f *testing.F) {
	for _, c := range readCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if json.Valid(v) && (len(v) == 0 || v[0] != ' ' && v[len(v)-1] != ' ') {
			checkReaders(t, v)
		}
	})
}

func checkReaders(t *testing.T, v []byte) {
	t.Helper()
	if got, ok := ReadToolCalls(v); ok {
		var want []ToolCallDelta
		if err := json.Unmarshal(v, &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadToolCalls(%s) = %+v; json.Unmarshal %+v, %v", v, got, want, err)
		}
	}
	if got, ok := ReadUsage(v); ok {
		var want *Usage
		if err := json.Unmarshal(v, &want); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ReadUsage(%s) = %+v; json.Unmarshal %+v, %v", v, got, want, err)
		}
	}
}
