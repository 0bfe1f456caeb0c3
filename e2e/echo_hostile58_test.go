package e2e

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile client, round 58: the client's text, normalised by the server
// (NFC or NFKC) before it is quoted back, through every door that carries
// it. The echo check folded fullwidth ASCII and a few case mappings
// (review 45b) but not canonical composition nor NFKC's other
// compatibility forms, so hostile 58 showed the normalised quote was a
// phrase the request "did not hold". The check now reads both sides
// through every character's compatibility decomposition
// (classify/echo_nfkd.go), and an error answer against the body Detour
// sent the upstream too (internal/dispatch Call.evidence).

// vllmFileURLNormalised is vllmFileURL (echo_hostile45b_test.go: vLLM's
// "The file path … must be a subpath of `--allowed-local-media-path`"
// 400, the path url2pathname-decoded) with the decoded path passed through
// form first: a server that normalises its input before it validates it.
// MECHANISM ONLY, as legacyRoleEcho: no cited server normalises a path.
func vllmFileURLNormalised(model string, form func(string) string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		u := imageURLOf(r.Body)
		if !strings.HasPrefix(u, "file://") {
			return ok(model, "hi")
		}
		pu, err := url.Parse(u)
		if err != nil {
			return upstreamtest.Step{Status: 500, Body: `{"object":"error","message":"bad url","type":"InternalServerError","param":null,"code":500}`}
		}
		b, _ := json.Marshal(map[string]any{
			"object":  "error",
			"message": "The file path " + form(pu.Path) + " must be a subpath of `--allowed-local-media-path` /srv/media.",
			"type":    "BadRequestError", "param": nil, "code": 400,
		})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
}

// TestHostile58NormalisedFileNameAcrossDoors: a file URL whose name is
// quota wording only after NFC (a CJK compatibility ideograph, Korean or
// Japanese written decomposed as macOS stores file names) or NFKC (a Kangxi
// radical, mathematical letters), through chat, responses and messages,
// whole and streamed. Hostile 58 showed the attempt at p read as quota,
// account p cooled. The controls (the phrase written as such; fullwidth,
// which the echo check folded) passed.
func TestHostile58NormalisedFileNameAcrossDoors(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		form       func(string) string
	}{
		{"control: written as such, NFC", "余额不足", norm.NFC.String},
		{"control: fullwidth, NFKC", "Your credit balance is too ｌｏｗ", norm.NFKC.String},
		{"U+F967 for 不, NFC", "余额\uF967足", norm.NFC.String},
		{"Korean decomposed, NFC", norm.NFD.String("잔액 부족"), norm.NFC.String},
		{"Japanese voiced mark apart, NFC", norm.NFD.String("残高が不足"), norm.NFC.String},
		{"Kangxi radical U+2F9C for 足, NFKC", "余额不\u2F9C", norm.NFKC.String},
		{"mathematical bold, NFKC", "Your credit balance is too \U0001D425\U0001D428\U0001D430", norm.NFKC.String},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := "file:///" + (&url.URL{Path: tc.file + ".png"}).EscapedPath()
			for _, door := range doors45b(u) {
				t.Run(door.name, func(t *testing.T) {
					fs := fakes(t, map[string]upstreamtest.Script{
						"p": vllmFileURLNormalised("model-a", tc.form),
						"q": script(ok("model-b", "q")),
					})
					g := start(t, twoTargets, fs)
					r := g.raw(t, http.MethodPost, door.path, door.body, door.headers...)
					t.Logf("%s: url %s status %d", door.name, u, r.Status)
					wantNoHarm45b(t, g, tc.name+" via "+door.name)
				})
			}
		})
	}
}

// TestHostile58NormalisedRole: the role a legacy OpenAI validator quotes
// (legacyRoleEcho), normalised first, at the chat door. Hostile 58 showed
// it decided the class, but for the controls.
func TestHostile58NormalisedRole(t *testing.T) {
	for _, tc := range []struct {
		name, role string
		form       func(string) string
	}{
		{"control: fullwidth, NFKC", "Your credit balance is too ｌｏｗ", norm.NFKC.String},
		{"U+F967 for 不, NFC", "余额\uF967足", norm.NFC.String},
		{"circled letters, NFKC", "Your credit balance is too \u24DB\u24DE\u24E6", norm.NFKC.String},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": legacyRoleEcho("model-a", tc.form),
				"q": script(ok("model-b", "q")),
			})
			g := start(t, twoTargets, fs)
			role, _ := json.Marshal(tc.role)
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":`+string(role)+`,"content":"hi"}]}`)
			wantNoHarm45b(t, g, tc.name)
		})
	}
}

// startEchoPair is the echo tests' gateway: route ra to an Anthropic
// provider whose fake is anth (echoSystem, echo_joined_test.go, quotes the
// system prompt, its blocks joined as they come), route ro to an OpenAI one
// whose fake is oai (echoFirst quotes the first message), each with a
// healthy fallback.
func startEchoPair(t *testing.T, anth, oai upstreamtest.Script) *gateway {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anth": anth,
		"oai":  oai,
		"q":    script(ok("model-b", "q")),
	})
	return start(t, `
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: `+secret+`}
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: claude-sonnet-4-5, providers: [anth]}
  - {name: o, model: gpt-4o, providers: [oai]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: ra, targets: [a, b]}
  - {name: ro, targets: [o, b]}
`, fs)
}

// TestHostile58JoinedPieces: the joined-text defence (echo.go echoedLines)
// looks for each piece between line breaks in the request, but a piece
// shorter than 4 bytes (minLinePiece) is never found: "low", or one CJK
// character. Detour's Messages door joins system blocks with "\n"
// (internal/door/messages/request.go), so system blocks "Your credit
// balance is too" and "low" reach an OpenAI target as "Your credit balance
// is too\nlow" and, quoted back, read as quota. And where Detour passes the
// blocks on as blocks (a Messages request to an Anthropic target), the
// repository's own fake (echoSystem) joins them with nothing between: no
// line break at all, so a phrase split mid-word ("…is too l" + "ow to
// access…") is not found either. Hostile 58 showed both read as quota;
// the control (the split TestJoinedClientTextIsNoEvidence uses) passed.
// The first is now the client's: the body Detour sent the OpenAI target
// holds the joined text (Call.evidence). The second, which only a
// careless upstream's join makes, is left open: its probe is
// TestHostile58JoinedWithNothing (probe_hostile58_test.go).
func TestHostile58JoinedPieces(t *testing.T) {
	for _, c := range []struct {
		name, body, provider string
	}{
		{"control: Messages system blocks to OpenAI, long pieces",
			`{"model":"ro","max_tokens":10,"system":[{"type":"text","text":"Your credit balance"},{"type":"text","text":"is too low to access the Anthropic API."}],"messages":[{"role":"user","content":"hi"}]}`, "oai"},
		{"Messages system blocks to OpenAI, a 3-byte last piece",
			`{"model":"ro","max_tokens":10,"system":[{"type":"text","text":"Your credit balance is too"},{"type":"text","text":"low"}],"messages":[{"role":"user","content":"hi"}]}`, "oai"},
		{"Responses developer text parts to OpenAI, a 3-byte last piece",
			`{"model":"ro","input":[{"role":"developer","content":[{"type":"input_text","text":"Your credit balance is too"},{"type":"input_text","text":"low"}]},{"role":"user","content":"hi"}]}`, "oai"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startEchoPair(t, echoSystem, echoFirst)
			path := "/v1/messages"
			if strings.HasPrefix(c.name, "Responses") {
				path = "/v1/responses"
			}
			g.raw(t, http.MethodPost, path, c.body, "anthropic-version", "2023-06-01")
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt: %+v", d)
			}
			a := d.Attempts[0]
			t.Logf("attempt %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			if a.Provider != c.provider || badClasses45b[a.Class] {
				t.Errorf("the client's split text decided the attempt: %s (%s)", a.Class, a.Evidence)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.State != "healthy" {
					t.Errorf("account %s is %s (last class %s) after the client's own words", acc.Name, acc.State, acc.LastClass)
				}
			}
		})
	}
}

// echoDocument answers 400 quoting the first plain-text document it got,
// in Anthropic's error envelope, as echoSystem (echo_joined_test.go) quotes
// the system prompt: a careless upstream. MECHANISM ONLY: no cited
// provider quotes a document.
func echoDocument(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	for _, m := range req.Messages {
		var blocks []struct {
			Type   string `json:"type"`
			Source struct {
				Type string `json:"type"`
				Data string `json:"data"`
			} `json:"source"`
		}
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			if b.Type == "document" && b.Source.Type == "text" {
				msg, _ := json.Marshal("Invalid document: " + b.Source.Data)
				return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":` + string(msg) + `}}`}
			}
		}
	}
	return upstreamtest.Step{Status: 200, Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`}
}

// TestHostile58Base64TextFileDecodedByDetour: a text file the client sends
// as base64 (OpenAI's file part / Responses input_file, "data:text/plain;
// base64,…") is decoded by Detour for a Claude target (chat.Part.TextFile,
// internal/provider/anthropic/request.go: a plain-text document block).
// The upstream then holds, in plain text, words the client's request holds
// only as base64, and the echo check reads the client's request as sent:
// quoted back, they decided the class (hostile 58); the control (the same
// words also written in plain text in the request) passed. The body
// Detour sent, which holds the decoded text, is now evidence.
func TestHostile58Base64TextFileDecodedByDetour(t *testing.T) {
	words := "Your credit balance is too low to access the Anthropic API."
	b64 := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte(words))
	for _, c := range []struct{ name, path, body string }{
		{"control: chat, the words also in plain text", "/v1/chat/completions",
			`{"model":"ra","messages":[{"role":"user","content":[{"type":"text","text":"` + words + `"},{"type":"file","file":{"filename":"notes.txt","file_data":"` + b64 + `"}}]}]}`},
		{"chat file part", "/v1/chat/completions",
			`{"model":"ra","messages":[{"role":"user","content":[{"type":"text","text":"summarise"},{"type":"file","file":{"filename":"notes.txt","file_data":"` + b64 + `"}}]}]}`},
		{"responses input_file", "/v1/responses",
			`{"model":"ra","input":[{"role":"user","content":[{"type":"input_text","text":"summarise"},{"type":"input_file","filename":"notes.txt","file_data":"` + b64 + `"}]}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startEchoPair(t, echoDocument, script(ok("gpt-4o", "o")))
			r := g.raw(t, http.MethodPost, c.path, c.body)
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt (status %d): %+v", r.Status, d)
			}
			a := d.Attempts[0]
			t.Logf("status %d; attempt %s/%s class=%s evidence=%s", r.Status, a.Target, a.Provider, a.Class, a.Evidence)
			if a.Provider != "anth" || badClasses45b[a.Class] {
				t.Errorf("the client's base64 file, decoded by Detour, decided the attempt: %s (%s)", a.Class, a.Evidence)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.State != "healthy" {
					t.Errorf("account %s is %s (last class %s) after the client's own words", acc.Name, acc.State, acc.LastClass)
				}
			}
		})
	}
}

// TestHostile58ToolReferenceSentence: the Messages door turns a
// tool_reference block (Claude Code's ToolSearch result) into Detour's own
// sentence "Tool <tool_name> is loaded and can be called."
// (internal/door/messages/turns.go). A self-hosted server that answers the
// tool message with a plain-text 500 quoting it (a Python server's str(e),
// as TestClientToolNameIsNoUnloadedModel's fake) then holds "Tool no model
// is loaded": the two-part phrase "no model … loaded" (unavailable: the
// endpoint retired for a day, for every client) from the client's name and
// Detour's word. The client's name is not quoted, so the "first part in a
// client's quoted item" defence does not apply, and "loaded" is Detour's.
// Hostile 58 showed it unavailable; the control, the client writing the
// same sentence as a text block, was server_error+echo. The body Detour
// sent, which holds its sentence, is now evidence.
func TestHostile58ToolReferenceSentence(t *testing.T) {
	const head = `{"model":"r","max_tokens":16,"tools":[{"name":"search","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"search","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":`
	for _, c := range []struct{ name, content string }{
		{"control: the client's own text block", `[{"type":"text","text":"Tool no model is loaded and can be called."}]`},
		{"tool_reference", `[{"type":"tool_reference","tool_name":"no model"}]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
					var req struct {
						Messages []struct {
							Role    string          `json:"role"`
							Content json.RawMessage `json:"content"`
						} `json:"messages"`
					}
					_ = json.Unmarshal(r.Body, &req)
					for _, m := range req.Messages {
						var s string
						if m.Role == "tool" && json.Unmarshal(m.Content, &s) == nil {
							return upstreamtest.Step{Status: 500, Body: "Unsupported tool message: " + s}
						}
					}
					return ok("model-a", "p")
				},
				"q": script(ok("model-b", "q")),
			})
			g := start(t, twoTargets, fs)
			g.raw(t, http.MethodPost, "/v1/messages", head+c.content+`}]}]}`, "anthropic-version", "2023-06-01")
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt recorded: %+v", d)
			}
			a := d.Attempts[0]
			t.Logf("attempt %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			if a.Provider != "p" || a.Class != "server_error" {
				t.Errorf("Detour's sentence around the client's tool name decided the attempt: %s (%s), want server_error", a.Class, a.Evidence)
			}
			for _, e := range g.health(t).Endpoints {
				if e.Provider == "p" && (e.LastClass == "unavailable" || e.CooldownUntil != nil && time.Until(*e.CooldownUntil) > time.Hour) {
					t.Errorf("endpoint a/p retired by the client's tool name: %s (last %s) until %v", e.State, e.LastClass, e.CooldownUntil)
				}
			}
		})
	}
}

// echoToolDescription answers 400 quoting the first tool's description,
// in Anthropic's envelope (a careless upstream, as echoSystem). MECHANISM
// ONLY: no cited provider quotes a description.
func echoToolDescription(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Tools []struct {
			Description string `json:"description"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &req)
	if len(req.Tools) == 0 {
		return upstreamtest.Step{Status: 200, Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`}
	}
	msg, _ := json.Marshal("tools.0.description: invalid description: " + req.Tools[0].Description)
	return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":` + string(msg) + `}}`}
}

// TestHostile58RootSchemaNote: for a Claude target Detour folds a tool
// schema's root anyOf into a sentence it appends to the description
// (internal/provider/anthropic/rootschema.go: "Give arguments that match
// at least one of: only <names joined by ', '>; <x> given."). Its "only "
// and ", " join the client's property names into "only available to,
// accounts": the two-part phrase "only available to … accounts"
// (forbidden). Quoted back in a plain 400 it reads as forbidden (counted
// against the account), hostile 58 showed; the control, whose names
// assemble no phrase, was bad_request/unknown. The body Detour sent,
// which holds the note, is now evidence.
func TestHostile58RootSchemaNote(t *testing.T) {
	for _, c := range []struct{ name, props string }{
		{"control: plain names", `{"city":{"type":"string"},"zip":{"type":"string"}}`},
		{"names joined by Detour's note", `{"available to":{"type":"string"},"accounts":{"type":"string"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startEchoPair(t, echoToolDescription, script(ok("gpt-4o", "o")))
			g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"ra","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"lookup","description":"Look it up.","parameters":{"type":"object","anyOf":[{"properties":`+c.props+`},{"required":["id"]}]}}}]}`)
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt: %+v", d)
			}
			a := d.Attempts[0]
			t.Logf("attempt %s/%s class=%s evidence=%s counted=%v", a.Target, a.Provider, a.Class, a.Evidence, a.Counted)
			if a.Provider != "anth" || badClasses45b[a.Class] {
				t.Errorf("Detour's note joining the client's names decided the attempt: %s (%s)", a.Class, a.Evidence)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.State != "healthy" {
					t.Errorf("account %s is %s (last class %s)", acc.Name, acc.State, acc.LastClass)
				}
			}
		})
	}
}
