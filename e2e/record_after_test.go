package e2e

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// slowSink is a decision sink whose Write takes hold (an exporter, a
// stalled log: whatever filing a record costs).
type slowSink struct{ hold time.Duration }

func (s slowSink) Write(*decision.Decision) { time.Sleep(s.hold) }

// A whole answer reaches the client before its decision record is filed
// (docs/design.md, "Filed after the answer"): with a sink that takes 1.5 s,
// the answer must not take as long (found by the hostile review: without a
// length and a flush, net/http held the answer until the handler returned).
func TestWholeAnswerDoesNotWaitForItsRecord(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "hello")}))
	t.Cleanup(up.Close)
	yaml := strings.ReplaceAll(`
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, "{oai}", up.URL)
	const hold = 1500 * time.Millisecond
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Decisions: slowSink{hold}})
	start := time.Now()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		bytes.NewReader([]byte(`{"model":"t","messages":[{"role":"user","content":"hi"}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil || resp.StatusCode != 200 || !strings.Contains(string(b), "hello") {
		t.Fatalf("status %d err %v: %s", resp.StatusCode, err, b)
	}
	if took >= hold {
		t.Fatalf("the answer took %v: it waited for its record's filing (%v)", took, hold)
	}
}
