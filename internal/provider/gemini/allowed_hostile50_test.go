package gemini

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// BenchmarkTranslateManyAllowedTools: under an allowed_tools choice of
// mode "required" the Gemini translation looks each declared function up
// in the allowed list (ToolChoice.Permits) and then in the names already
// kept (slices.Contains on AllowedFunctionNames): O(n²) twice over when
// every tool is listed (hostile 50: 6.3 s for 4 MiB of them). Both are
// set lookups now: linear.
func BenchmarkTranslateManyAllowedTools(b *testing.B) {
	build := func(n int) []byte {
		var b bytes.Buffer
		b.WriteString(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"function","function":{"name":"f` + strconv.Itoa(1000000+i) + `"}}`)
		}
		b.WriteString(`],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[`)
		for i := n - 1; i >= 0; i-- { // listed in reverse: each lookup scans most of the list
			if i < n-1 {
				b.WriteByte(',')
			}
			b.WriteString(`{"type":"function","function":{"name":"f` + strconv.Itoa(1000000+i) + `"}}`)
		}
		b.WriteString(`]}}}`)
		return b.Bytes()
	}
	req := adaptertest.ClientRequest(b, build(40000))
	for b.Loop() {
		TranslateFor(req, "gemini-2.5-flash")
	}
}
