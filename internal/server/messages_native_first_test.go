package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A Messages request whose route begins with an Anthropic target is that
// target's to judge: the door does not translate it unless the walk reaches
// a target that needs the translation (docs/doors.md, "How the door is
// wired"). A body Anthropic takes but whose translation would cost more than
// any translation may (a content list of 150,000 numbers) therefore reaches
// Claude and is answered; before, the door translated every request up
// front and refused this one with 413 though Claude would have served it.
func TestMessagesNativeFirstIsNotTranslatedUpFront(t *testing.T) {
	url, _, an, p, recs := overdraftGateway(t) // route r: [claude, b]
	costly := `{"model":"r","max_tokens":8,"messages":[{"role":"user","content":[` + tooCostly + `]}]}`
	resp, body := post(t, url, "/v1/messages", costly)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"type":"message"`) {
		t.Fatalf("a body only Claude can take, to a route that begins with Claude: %d %.300s", resp.StatusCode, body)
	}
	if an.Calls() != 1 || p.Calls() != 0 {
		t.Errorf("calls: Anthropic %d, OpenAI %d; want 1, 0", an.Calls(), p.Calls())
	}
	recs.Wait(t, 1)

	// What is not a Messages request at all is still refused at the door,
	// before any upstream call.
	resp, body = post(t, url, "/v1/messages", `{"model":"r","max_tokens":8,"messages":[`+tooCostly+`]}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "messages.0: want a message object, got a number") {
		t.Errorf("a list of numbers for messages: %d %.300s, want 400 naming messages.0", resp.StatusCode, body)
	}
	if an.Calls() != 1 || p.Calls() != 0 {
		t.Errorf("an upstream was called for a body that is not a Messages request: Anthropic %d, OpenAI %d", an.Calls(), p.Calls())
	}
}

// When Claude fails, the walk translates the request for the next target
// then, once: the OpenAI target gets the canonical chat body and the client
// a Message; a translation too costly to make skips that target (evidence
// translation-cost) and the client gets Claude's own failure.
func TestMessagesNativeFirstTranslatesWhenTheWalkMovesOn(t *testing.T) {
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
	})
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("model-b", "from b")}
	})
	t.Cleanup(an.Close)
	t.Cleanup(p.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, overdraftConfig(an, p, "[claude, b]")), app.Options{Decisions: recs})
	resp, body := post(t, url, "/v1/messages", `{"model":"r","max_tokens":8,"system":"be terse","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "from b") || !strings.Contains(body, `"type":"message"`) {
		t.Fatalf("Claude overloaded, b answers: %d %.300s", resp.StatusCode, body)
	}
	if got := p.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), `"role":"system"`) || !strings.Contains(string(got[0].Body), `"max_tokens":8`) { // a model that is not OpenAI's reasoning one: max_tokens (probe 53a)
		t.Errorf("b got %d requests (%.300q), want one, translated to chat", len(got), got)
	}
	recs.Wait(t, 1)

	resp, body = post(t, url, "/v1/messages", `{"model":"r","max_tokens":8,"messages":[{"role":"user","content":[`+tooCostly+`]}]}`)
	if resp.StatusCode != 529 || !strings.Contains(body, "overloaded_error") {
		t.Errorf("Claude overloaded, the translation for b too costly: %d %.300s, want Claude's 529", resp.StatusCode, body)
	}
	d := recs.Wait(t, 2)
	var evidence []string
	for _, a := range d.Attempts {
		evidence = append(evidence, a.Target+":"+a.Evidence)
	}
	if p.Calls() != 1 || !strings.Contains(strings.Join(evidence, " "), "b:translation-cost") {
		t.Errorf("attempts %v, b called %d times in all; want b skipped with evidence translation-cost", evidence, p.Calls())
	}
}
