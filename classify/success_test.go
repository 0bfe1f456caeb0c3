package classify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// testdata/success holds recorded 2xx answers that are successes by
// docs/behaviour.md's classes though they read like a failure: a model
// declining in its own words (OpenAI's message.refusal, a Responses
// refusal part), which the client's SDK reads as its answer. Each cites its
// source as a corpus file does; none may be classified as a failure.
func TestRecordedSuccessesStaySuccesses(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "success", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded successes: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var c corpusCase
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.Source == "" || c.Status/100 != 2 {
			t.Errorf("%s: a recorded success needs its source and a 2xx status", f)
		}
		if got := Classify(c.response()); got.Failed {
			t.Errorf("%s: %s (%s), want a success", filepath.Base(f), got.Class, got.Evidence)
		}
	}
}
