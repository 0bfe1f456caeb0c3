package messages

import (
	"encoding/json"
	"testing"
)

// TestR48DocumentWithoutTitleHasAFilename: Anthropic's PDF example
// (platform.claude.com/docs/en/build-with-claude/pdf-support, "Option 2:
// Base64-encoded PDF document") sends a document block with no title; the
// door makes it Chat Completions' file part with file_data and no
// filename. OpenAI refuses such a part: 400 "Missing required parameter:
// 'messages[0].content[1].file.file_id'" (openai/openai-agents-python#1513,
// langchain-ai/langchainjs#9512: a filename is required beside file_data),
// so every Claude Code / SDK PDF sent through the Messages door to an
// OpenAI target fails as a client error.
func TestR48DocumentWithoutTitleHasAFilename(t *testing.T) {
	in := `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":[
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}},
		{"type":"text","text":"What are the key findings in this document?"}]}]}`
	got, err := Translate([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Messages []struct {
			Content []struct {
				Type string `json:"type"`
				File *struct {
					FileData string `json:"file_data"`
					Filename string `json:"filename"`
				} `json:"file"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(got.Body, &out); err != nil || len(out.Messages) != 1 || len(out.Messages[0].Content) != 2 {
		t.Fatalf("%v: %s", err, got.Body)
	}
	p := out.Messages[0].Content[0]
	if p.Type != "file" || p.File == nil || p.File.FileData == "" {
		t.Fatalf("not a file part: %s", got.Body)
	}
	if p.File.Filename == "" {
		t.Errorf("file part without a filename, which OpenAI refuses beside file_data: %s", got.Body)
	}
}
