package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
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
