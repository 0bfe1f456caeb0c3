package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Embeddings at the Gemini door (docs/doors.md, "Google Gemini"):
// :embedContent and :batchEmbedContents through the embeddings dispatch,
// to an OpenAI and a Gemini upstream, over a failure, and to a route with
// no target that embeds.

const geminiEmbedCfg = `
client_keys:
  - {name: app, key: gk-one}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-openai}
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: sk-ant}
  - {name: g, dialect: gemini, base_url: "{g}", api_key: sk-gem}
  - {name: down, dialect: openai, base_url: "{down}", api_key: sk-down}
targets:
  - {name: small, model: text-embedding-3-small, providers: [p]}
  - {name: claude, model: claude-sonnet-4-5, providers: [an]}
  - {name: gemb, model: gemini-embedding-001, providers: [g]}
  - {name: broken, model: text-embedding-3-small, providers: [down]}
routes:
  - {name: oai-emb, targets: [small]}
  - {name: gem-emb, targets: [gemb]}
  - {name: to-claude, targets: [claude]}
  - {name: emb-fails-over, targets: [broken, gemb]}
`

type geminiEmbedGW struct {
	url        string
	p, g, down *upstreamtest.Server
	recs       *gatewaytest.Records
}

func geminiEmbedGateway(t *testing.T) *geminiEmbedGW {
	t.Helper()
	gw := &geminiEmbedGW{}
	gw.p = upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var in struct{ Input []string }
		_ = json.Unmarshal(r.Body, &in)
		data := make([]string, len(in.Input))
		for i := range in.Input {
			data[i] = fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[0.6,0.8]}`, i)
		}
		return upstreamtest.Step{Body: `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"text-embedding-3-small","usage":{"prompt_tokens":3,"total_tokens":3}}`}
	})
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	gw.g = upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		n := strings.Count(string(r.Body), `"content"`)
		vs := make([]string, n)
		for i := range vs {
			vs[i] = `{"values":[0,1]}`
		}
		return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(vs, ",") + `]}`}
	})
	gw.down = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}
	})
	for _, s := range []*upstreamtest.Server{gw.p, an, gw.g, gw.down} {
		t.Cleanup(s.Close)
	}
	gw.recs = gatewaytest.NewRecords()
	cfg := strings.NewReplacer("{p}", gw.p.URL, "{an}", an.URL, "{g}", gw.g.URL, "{down}", gw.down.URL).Replace(geminiEmbedCfg)
	gw.url, _ = gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: gw.recs})
	return gw
}

const (
	embedOne   = `{"model":"models/x","content":{"parts":[{"text":"hello"}]},"taskType":"RETRIEVAL_QUERY","outputDimensionality":2}`
	embedBatch = `{"requests":[{"model":"models/%[1]s","content":{"parts":[{"text":"one"}]},"taskType":"RETRIEVAL_DOCUMENT","title":"t"},
		{"model":"models/%[1]s","content":{"parts":[{"text":"two"}]}}]}`
)

func TestGeminiEmbedToOpenAI(t *testing.T) {
	gw := geminiEmbedGateway(t)
	for _, prefix := range []string{"/v1beta/models/", "/v1/models/"} {
		resp, body := geminiPost(t, gw.url, prefix+"oai-emb:embedContent", embedOne)
		if resp.StatusCode != 200 || body != `{"embedding":{"values":[0.6,0.8]}}` {
			t.Errorf("%s embedContent: %d %s", prefix, resp.StatusCode, body)
		}
	}
	resp, body := geminiPost(t, gw.url, "/v1beta/models/oai-emb:batchEmbedContents", fmt.Sprintf(embedBatch, "oai-emb"))
	if resp.StatusCode != 200 || body != `{"embeddings":[{"values":[0.6,0.8]},{"values":[0.6,0.8]}]}` {
		t.Errorf("batchEmbedContents: %d %s", resp.StatusCode, body)
	}
	got := gw.p.Requests()
	if len(got) != 3 || got[0].Path != "/embeddings" ||
		string(got[0].Body) != `{"model":"text-embedding-3-small","input":["hello"],"dimensions":2}` ||
		string(got[2].Body) != `{"model":"text-embedding-3-small","input":["one","two"]}` {
		t.Fatalf("OpenAI got %d requests: %+v", len(got), got)
	}
	d := gw.recs.Wait(t, 3)
	if d.API != "gemini" || d.Client != "app" || d.Outcome != "ok" || d.Route != "oai-emb" {
		t.Errorf("record: %+v", d)
	}
}

func TestGeminiEmbedToGemini(t *testing.T) {
	gw := geminiEmbedGateway(t)
	resp, body := geminiPost(t, gw.url, "/v1beta/models/gem-emb:batchEmbedContents", fmt.Sprintf(embedBatch, "gem-emb"))
	if resp.StatusCode != 200 || body != `{"embeddings":[{"values":[0,1]},{"values":[0,1]}]}` {
		t.Errorf("batchEmbedContents: %d %s", resp.StatusCode, body)
	}
	got := gw.g.Requests()
	if len(got) != 1 || got[0].Path != "/v1beta/models/gemini-embedding-001:batchEmbedContents" ||
		!strings.Contains(string(got[0].Body), `"model":"models/gemini-embedding-001","content":{"parts":[{"text":"one"}]}`) ||
		strings.Contains(string(got[0].Body), "RETRIEVAL") {
		t.Fatalf("Gemini got %+v", got)
	}
	// More contents than Gemini takes in one call: two calls, one answer.
	reqs := make([]string, 150)
	for i := range reqs {
		reqs[i] = fmt.Sprintf(`{"model":"models/gem-emb","content":{"parts":[{"text":"t%d"}]}}`, i)
	}
	resp, body = geminiPost(t, gw.url, "/v1beta/models/gem-emb:batchEmbedContents", `{"requests":[`+strings.Join(reqs, ",")+`]}`)
	var a struct{ Embeddings []struct{ Values []float64 } }
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &a) != nil || len(a.Embeddings) != 150 {
		t.Errorf("150 contents: %d %.200s", resp.StatusCode, body)
	}
	if n := len(gw.g.Requests()); n != 3 {
		t.Errorf("Gemini got %d requests, want 1 + 2", n)
	}
}

func TestGeminiEmbedFailsOver(t *testing.T) {
	gw := geminiEmbedGateway(t)
	resp, body := geminiPost(t, gw.url, "/v1beta/models/emb-fails-over:embedContent", embedOne)
	if resp.StatusCode != 200 || body != `{"embedding":{"values":[0,1]}}` || resp.Header.Get("X-Detour-Target") != "gemb" {
		t.Fatalf("%d %s %v", resp.StatusCode, body, resp.Header)
	}
	d := gw.recs.Wait(t, 1)
	if d.API != "gemini" || len(d.Attempts) < 2 || d.Attempts[0].Target != "broken" || d.Attempts[len(d.Attempts)-1].Target != "gemb" {
		t.Errorf("record: %+v", d)
	}
	if got := gw.g.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), `"outputDimensionality":2`) {
		t.Errorf("Gemini got %+v", got)
	}
}

func TestGeminiEmbedRefusals(t *testing.T) {
	gw := geminiEmbedGateway(t)
	for _, c := range []struct {
		path, body string
		status     int
		want       string
	}{
		{"/v1beta/models/to-claude:embedContent", embedOne, 400, `no target of \"to-claude\" serves`},
		{"/v1beta/models/oai-emb:batchEmbedContents", fmt.Sprintf(embedBatch, "gem-emb"), 400, `each request of a batch must name the model of the URL`},
		{"/v1beta/models/oai-emb:embedContent", `{"content":{"parts":[{"fileData":{"fileUri":"gs://b/o"}}]}}`, 400, "Detour embeds text parts only"},
		{"/v1beta/models/oai-emb:embedContent", `{"content":{"parts":[{"text":"x"}]},"TaskType":"x"}`, 400, "TaskType"},
		{"/v1beta/models/nope:embedContent", embedOne, 404, "nope"},
	} {
		resp, body := geminiPost(t, gw.url, c.path, c.body)
		var e struct {
			Error struct {
				Code            int
				Message, Status string
			}
		}
		if resp.StatusCode != c.status || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != c.status ||
			e.Error.Status == "" || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s", c.path, c.body, resp.StatusCode, body)
		}
	}
	if n := len(gw.p.Requests()) + len(gw.g.Requests()); n != 0 {
		t.Errorf("%d upstream requests", n)
	}
}
