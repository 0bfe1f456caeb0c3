package clienttest

import (
	"encoding/json"
	"strings"
	"testing"
)

// weather is the tool call the recorder answers the scripts' get_weather
// offers with.
var weather = &ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)}

// TestNodeClientsRecord runs each JavaScript client script against the
// recorder (no Detour in between) and, with -record, writes what the
// client sent to e2e/testdata/clients.
func TestNodeClientsRecord(t *testing.T) {
	pkgs, err := NodePackages()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, script, fixture string }{
		{"openai", "openai.mjs", "node-openai-" + pkgs["openai"] + ".jsonl"},
		{"anthropic", "anthropic.mjs", "node-anthropic-sdk-" + pkgs["@anthropic-ai/sdk"] + ".jsonl"},
		{"ai", "ai.mjs", "node-ai-" + pkgs["ai"] + ".jsonl"},
		{"agents", "agents.mjs", "node-openai-agents-" + pkgs["@openai/agents"] + ".jsonl"},
		{"langchain", "langchain.mjs", "node-langchain-openai-" + pkgs["@langchain/openai"] + "-anthropic-" + pkgs["@langchain/anthropic"] + ".jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec, err := NewRecorder("hi from the recorder", weather)
			if err != nil {
				t.Fatal(err)
			}
			rec.Object = Object
			defer rec.Close()
			res := RunNode(t, rec.URL, tc.script)
			t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			// Against the recorder every case succeeds (it checks no key
			// and knows every model name).
			for name, line := range res.Cases {
				if strings.Contains(string(line), `"error":{`) {
					t.Errorf("case %s: %s", name, line)
				}
			}
			if len(res.Cases) < 8 {
				t.Errorf("%d cases ran", len(res.Cases))
			}
			if *recordFlag {
				writeFixture(t, tc.fixture, res.Home, rec.Requests())
			}
		})
	}
}
