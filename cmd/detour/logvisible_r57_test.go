package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
)

// TestJSONLogWritesInvisibleCharactersEscaped: a log line quoting an
// upstream's message or a client's model name must not reorder or hide text
// in the operator's terminal (hostile 56: the JSON log kept U+202E raw; the
// text format quotes it). The line still decodes to the same message.
func TestJSONLogWritesInvisibleCharactersEscaped(t *testing.T) {
	var out bytes.Buffer
	log := newLogger(config.Log{Format: "json", Level: "info"}, &out)
	msg := "upstream said \u202Edetaeh\u202C \U000E0041\u009b"
	log.Info("x", "upstream_message", msg)
	line := out.String()
	if strings.ContainsAny(line, "\u202E\u202C\u009b") || strings.Contains(line, "\U000E0041") || !strings.Contains(line, `\u202e`) {
		t.Errorf("the JSON log line: %q", line)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["upstream_message"] != msg {
		t.Errorf("decoded %v (%v)", rec["upstream_message"], err)
	}
}

// TestTextLogAndDecisionLinesShowHiddenCharacters: the text log quotes what
// is not printable, but a variation selector (which can carry a hidden byte
// after an emoji) is printable to it; `detour decisions` quoted the message
// but not an upstream's code in the evidence (hostile 57b).
func TestTextLogAndDecisionLinesShowHiddenCharacters(t *testing.T) {
	var out bytes.Buffer
	newLogger(config.Log{Format: "text", Level: "info"}, &out).Info("x", "upstream_message", "ok\U0001F642\U000E0143\U000E0154")
	if strings.Contains(out.String(), "\U000E0143") || !strings.Contains(out.String(), `\udb40\udd43`) {
		t.Errorf("the text log line: %q", out.String())
	}
	line := formatRecord(&decision.Decision{Route: "r", Outcome: "error", Status: 429,
		Attempts: []decision.Attempt{{Target: "t", Provider: "p", Status: 429, Class: "quota", Evidence: "code:spent\u202Edetaeh", Action: "stop"}}})
	if strings.Contains(line, "\u202E") || !strings.Contains(line, `\u202e`) {
		t.Errorf("the decisions line: %q", line)
	}
}
