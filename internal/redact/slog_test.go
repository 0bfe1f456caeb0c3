package redact

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// The log handler scrubs the message and every kind of attribute, before
// the JSON handler escapes them, with whatever Scrubber is current.
func TestHandlerScrubsEveryRecord(t *testing.T) {
	var c Current
	c.Set(New(testRules()))
	var buf bytes.Buffer
	log := slog.New(Handler(slog.NewJSONHandler(&buf, nil), &c))
	log = log.With("base", "http://10.0.0.5:8000/v1")
	log.Info("upstream said "+oaiKey,
		"err", errors.New(`Post "http://internal-host:8000/v1/chat/completions": key `+gemKey),
		"text", "x-api-key: "+oaiKey,
		slog.Group("g", "inner", antKey),
		"bytes", []byte(gemKey),
		"n", 3)
	out := buf.String()
	noFragments(t, out, oaiKey, antKey, gemKey)
	for _, place := range []string{"10.0.0.5", "internal-host"} {
		if strings.Contains(out, place) {
			t.Errorf("log line shows %s: %s", place, out)
		}
	}
	if !strings.Contains(out, `"n":3`) || !strings.Contains(out, "[provider local]") {
		t.Errorf("log line lost its shape: %s", out)
	}

	// A reload makes a new key secret: the same logger uses it at once.
	const rotated = "rotatedKey-0123456789"
	c.Set(New(Rules{Secrets: []string{rotated}}))
	buf.Reset()
	log.Warn("echo", "msg2", rotated)
	if strings.Contains(buf.String(), rotated[:8]) {
		t.Errorf("the current scrubber was not used: %s", buf.String())
	}
}
