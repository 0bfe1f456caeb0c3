package chat

import "testing"

// Review 52: 597cba8 reads a count that is not a plain integer as its
// floor "in every dialect". The doors that translate a chat stream
// (Messages, Responses) read each canonical chunk with ReadStreamChunk,
// whose Usage decodes into ints: a chunk with "completion_tokens": 37.25
// (easyllm's server, philschmid/easyllm#42) fails to read, and the door
// skips it — with its finish_reason where the server sends usage on the
// finishing chunk.
func TestReadStreamChunkReadsAFloatCount(t *testing.T) {
	data := []byte(`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":37.25,"total_tokens":46.25}}`)
	var c StreamChunk
	if err := ReadStreamChunk(data, &c); err != nil {
		t.Fatalf("ReadStreamChunk: %v", err)
	}
	if c.Usage == nil || c.Usage.CompletionTokens != 37 || len(c.Choices) != 1 {
		t.Errorf("read %+v", c)
	}
}
