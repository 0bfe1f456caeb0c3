package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 52b: capToModel treats "a later family writes at least what 4.5
// does" (64,000, a floor for a default) as a ceiling. Claude Opus 4.6 writes
// 128K tokens (platform.claude.com/docs/en/models/opus-4-6/overview: "Max
// output: 128K tokens"; Vertex's model card: "Maximum output tokens:
// 128,000"), so a client's max_tokens of 100,000, which Anthropic accepts
// and which was sent as is before e31b7fa, is now cut to 64,000.
func TestCapToModelLeavesNewerClaudeAlone(t *testing.T) {
	out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","max_tokens":100000,"messages":[{"role":"user","content":"Write the whole novel."}]}`)), "claude-opus-4-6")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		MaxTokens int `json:"max_tokens"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.MaxTokens != 100000 {
		t.Errorf("claude-opus-4-6 (128K output) was sent max_tokens %d for the client's 100000", got.MaxTokens)
	}
}

// Review 52b: a text file is taken by its media type being text/*, JSON,
// XML or YAML, but OpenAI's list of the files input_file takes as text
// names code under application/ types: ".sh application/x-sh",
// ".ts application/typescript" (platform.openai.com/docs/assistants/tools/
// file-search/supported-files; mime-db, which most clients use, writes
// application/x-sh for .sh too). Such a shell script is still not sent.
func TestShellScriptIsATextFile(t *testing.T) {
	for _, mt := range []string{"application/x-sh", "application/typescript", "application/javascript"} {
		_, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":[`+
			`{"type":"file","file":{"filename":"deploy.sh","file_data":"data:`+mt+`;base64,IyEvYmluL3NoCmVjaG8gaGkK"}},{"type":"text","text":"What does this do?"}]}]}`)), "claude-sonnet-4-5")
		if err != nil {
			t.Errorf("%s: %v", mt, err)
		}
	}
}
