package classify

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite what the selected tests generate: testdata/sweep.golden, the corpus table of testdata/corpus/README.md")

// TestSweep pins the class of every status 400–451 and 500–599 with an empty
// body: a change to any of them is a visible decision in the golden file.
// Regenerate with: go test ./classify -run Sweep -update
func TestSweep(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("# status class evidence (empty body)\n")
	for _, rng := range [][2]int{{400, 451}, {500, 599}} {
		for st := rng[0]; st <= rng[1]; st++ {
			v := Classify(Response{Status: st})
			if !v.Failed || v.Evidence == "" {
				t.Errorf("%d: %+v", st, v)
			}
			fmt.Fprintf(&b, "%d %s %s\n", st, v.Class, v.Evidence)
		}
	}
	golden := filepath.Join("testdata", "sweep.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("sweep differs from %s; got:\n%s", golden, b.String())
	}
}
