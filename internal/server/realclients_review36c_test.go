package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/messages"
	"github.com/detour-llm/detour/internal/door/responses"
)

// recordedBody is the body of the line-th request (1-based) of a recorded
// real client (e2e/testdata/clients).
func recordedBody(t *testing.T, file string, line int) map[string]json.RawMessage {
	t.Helper()
	f, err := os.Open("../../e2e/testdata/clients/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for i := 1; sc.Scan(); i++ {
		if i != line {
			continue
		}
		var r struct {
			Body map[string]json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		return r.Body
	}
	t.Fatalf("%s has no line %d", file, line)
	return nil
}

// grown is the recorded body with its list member list grown to about
// size bytes by repeating the recorded items [from, to) before its last
// item: a long agent session of the same tool loop.
func grown(t *testing.T, body map[string]json.RawMessage, list string, from, to int, size int) []byte {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal(body[list], &items); err != nil {
		t.Fatal(err)
	}
	base, _ := json.Marshal(body)
	loop := items[from:to]
	per := 0
	for _, it := range loop {
		per += len(it) + 1
	}
	head := append([]json.RawMessage{}, items[:len(items)-1]...)
	for n := len(base); n+per < size; n += per {
		head = append(head, loop...)
	}
	head = append(head, items[len(items)-1])
	body[list], _ = json.Marshal(head)
	out, _ := json.Marshal(body)
	return out
}

// Review 36c. With the defaults (max_body_bytes 8 MiB, allowance 64 MiB)
// one translation may reserve 320 MiB, 40 bytes per byte of the largest
// body. A real coding agent's body grows with its session: every tool
// call and result adds a few objects for a few hundred bytes. Grown to
// under the largest accepted size by repeating the recorded tool loop,
// Claude Code's and Codex's bodies cost more than the cap: the Messages
// door answers 413, and a Responses body the door accepts becomes, in
// chat, a body no Anthropic or Gemini target may translate (a function
// call is one object in Responses, four in chat).
func TestReview36cRealAgentSessionsFitTheCap(t *testing.T) {
	const maxBody, allowance = 8 << 20, 64 << 20
	capCost := dispatch.MaxTranslationCost(maxBody, allowance)
	size := maxBody - 64<<10
	cc := grown(t, recordedBody(t, "claude-code-2.1.337-tool.jsonl", 2), "messages", 2, 4, size)
	cx := grown(t, recordedBody(t, "codex-0.171.0-tool.jsonl", 2), "input", 4, 6, size)

	report := func(name string, b []byte) int64 {
		c := dispatch.TranslationCost(b)
		t.Logf("%-34s %8d bytes, cost %4.1f×, %3.0f%% of the cap (%d MiB)", name, len(b), float64(c)/float64(len(b)), 100*float64(c)/float64(capCost), capCost>>20)
		return c
	}
	if c := report("claude code, messages door", cc); c > capCost {
		t.Errorf("a Claude Code session of %d bytes (under max_body_bytes %d) costs %d to translate, past the cap %d: the Messages door answers 413 translation_too_costly", len(cc), maxBody, c, capCost)
	}
	if tr, err := messages.Translate(bytes.Clone(cc)); err == nil {
		if c := report("claude code, its chat at a target", tr.Body); c > capCost {
			t.Errorf("Claude Code's session in chat (%d bytes) costs %d, past the cap %d: every Gemini target is skipped", len(tr.Body), c, capCost)
		}
	} else {
		t.Logf("messages.Translate: %v", err)
	}
	if c := report("codex, responses door", cx); c > capCost {
		t.Errorf("a Codex session of %d bytes costs %d at the Responses door, past the cap %d", len(cx), c, capCost)
	}
	tr, err := responses.Translate(bytes.Clone(cx))
	if err != nil {
		t.Fatal(err)
	}
	if c := report("codex, its chat at a target", tr.Chat); c > capCost {
		t.Errorf("a Codex session of %d bytes (door cost %d, within the cap) becomes %d bytes of chat costing %d, past the cap %d: every Anthropic and Gemini target is skipped, 413 translation_too_costly",
			len(cx), dispatch.TranslationCost(cx), len(tr.Chat), c, capCost)
	}
	// docs/config.md: "every body of an ordinary shape up to the largest
	// size fits twice over (a continuation's decoding, then the
	// translation)" — native.go reserves 2 × TranslationCost for a
	// continuation by prefill at an Anthropic target.
	if c := 2 * dispatch.TranslationCost(tr.Chat); c > capCost {
		t.Errorf("a Codex session of %d bytes, continued by prefill at an Anthropic target, reserves %d, past the cap %d: never continued there", len(cx), c, capCost)
	}
}
