package classify

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCase is one real provider answer under testdata/corpus, with the
// class it must get (docs/behaviour.md#classes) and where it was found.
type corpusCase struct {
	Provider string            `json:"provider"`
	Dialect  string            `json:"dialect"`
	Status   int               `json:"status"`
	Headers  map[string]string `json:"headers"`
	Stream   bool              `json:"stream"`
	Body     string            `json:"body"`
	Class    string            `json:"class"`
	Source   string            `json:"source"`
	Note     string            `json:"note"`
	// Miss, when set, is the class the classifier gives today where it
	// disagrees with Class and no general rule was written (the note says
	// why). The case then asserts Miss, so a rule that changes it is seen;
	// the accuracy table counts it as a miss.
	Miss string `json:"miss"`
	// Request and Model, optional, are the client's request body and the
	// model Detour sent, for an answer whose class depends on them (a
	// not-found answer about something the client named).
	Request string `json:"request"`
	Model   string `json:"model"`
}

// corpusProviders are the provider names a corpus file may carry
// (testdata/corpus/README.md lists what each stands for).
var corpusProviders = map[string]bool{}

func init() {
	for _, p := range strings.Fields(`openai azure anthropic gemini vertex openrouter groq mistral deepseek
		together xai bedrock cerebras fireworks perplexity ollama vllm litellm llamacpp sglang tgi lmstudio
		huggingface nvidia cohere cloudflare portkey dashscope moonshot zhipu minimax siliconflow volcengine
		baidu watsonx replicate deepinfra github venice sambanova databricks xinference opencode spark stepfun
		hunyuan scaleway localai novita nous oneapi newapi truefoundry pollinations sub2api voyage tei vlmrun
		modelscope vercel aihubmix iflow kronk mimo runpod koboldcpp tabbyapi lmdeploy infinity bedrockgw kong
		chutes arcee hyperbolic upstage sagemaker jina wandb
		fastchat triton mlxlm textgenwebui gpt4all envoyaigw cfaigateway helicone antigravity aimlapi rayserve apisix tensorzero
		gigachat sensenova huaweicloud mixedbread yandex lemonade baseten gpustack ccr fcc snowflake crusoe kserve omniroute
		opengateway agentrouter fastdeploy tokenwork ungate geminibalance droidproxy clauderelayservice
		cliproxyapi aiclient2api dario qwen kiro autoclaw antigravityproxy oci
		ionos kluster friendli nebius reka ai21 apigee chatanywhere nlpcloud publicai cline zed ds4 poe bifrost clova zenmux
		infomaniak gmicloud longcat synthetic aidial higress mlxopenaiserver opengatellm apigateway donehub hetzner
		tokenhub factory sapaicore dynamo trtllm mlcllm jan kilo zhima sourcegraph clove
		vmlx llamaswap llmgateway mergegateway exa mindie aisix otari continue
		duckduckgo llmfoundry uipath dmxapi
		apfel primeintellect wpengine dockermodelrunner agentgateway ohmygpt gatewayz openwebui nearai sliplane
		telnyx requesty parasail writer targon tuningengines dify
		openrelay crazyrouter zerog routerbase aigate mlflowgateway wso2apim infiniai micuapi hiway2llm thalam
		tokenflux abacus routstr xhub agnes commandcode
		haproxy envoy traefik nginx cloudfront manifest paragonapi proxyapi sarvam salesforce hatz claudecodeproxy vllmrouter tenstorrent unsloth`) {
		corpusProviders[p] = true
	}
}

func (c corpusCase) response() Response {
	h := http.Header{}
	for k, v := range c.Headers {
		h.Set(k, v)
	}
	r := Response{Status: c.Status, Header: h, Body: []byte(c.Body), Dialect: Dialect(c.Dialect),
		Provider: c.Provider, Stream: c.Stream, Model: c.Model}
	if c.Request != "" {
		r.Request = []byte(c.Request)
	}
	return r
}

func loadCorpus(t testing.TB) map[string]corpusCase {
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]corpusCase, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c corpusCase
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if !corpusProviders[c.Provider] {
			t.Errorf("%s: provider %q is not in corpusProviders (add it there and to the README's list)", f, c.Provider)
		}
		if !strings.HasPrefix(filepath.Base(f), c.Provider+"-") {
			t.Errorf("%s: the file name does not start with its provider %q", f, c.Provider)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = c
	}
	return out
}

// TestCorpus classifies every real provider answer in testdata/corpus; one
// subtest per file, so adding a file adds a test.
func TestCorpus(t *testing.T) {
	cases := loadCorpus(t)
	if len(cases) == 0 {
		t.Skip("no corpus files")
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := ParseClass(c.Class)
			if err != nil {
				t.Fatalf("corpus class: %v", err)
			}
			v := Classify(c.response())
			if c.Miss == "ok" {
				// A known miss the classifier does not fail at all (a 2xx
				// another layer rejects end to end; the note says which).
				if v.Failed {
					t.Fatalf("known miss: class %s (evidence %q), recorded as not failed: update or drop \"miss\"; note: %s", v.Class, v.Evidence, c.Note)
				}
				return
			}
			if c.Miss != "" {
				miss, err := ParseClass(c.Miss)
				if err != nil || miss == want {
					t.Fatalf("corpus miss %q: must be another class than %s (%v)", c.Miss, want, err)
				}
				if !v.Failed || v.Class != miss {
					t.Fatalf("known miss: class %s (failed %v, evidence %q), recorded as %s, want %s: "+
						"update or drop \"miss\"; note: %s", v.Class, v.Failed, v.Evidence, miss, want, c.Note)
				}
				t.Logf("known miss: %s (evidence %q), want %s", v.Class, v.Evidence, want)
				return
			}
			if !v.Failed {
				t.Fatalf("Failed=false (evidence %q), want %s; note: %s", v.Evidence, want, c.Note)
			}
			if v.Class != want {
				t.Errorf("class %s (evidence %q), want %s; note: %s", v.Class, v.Evidence, want, c.Note)
			}
			if v.Evidence == "" {
				t.Errorf("empty evidence")
			}
		})
	}
}

// TestCorpusAllocs: every corpus answer, each of the shapes the rules read,
// classifies without allocating (no client request, so no echo check).
func TestCorpusAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for name, c := range loadCorpus(t) {
		r := c.response()
		if n := testing.AllocsPerRun(5, func() { Classify(r) }); n != 0 {
			t.Errorf("%s: %v allocs per classification", name, n)
		}
	}
}
