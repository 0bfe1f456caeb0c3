package classify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestHunt47aScratch(t *testing.T) {
	files, _ := filepath.Glob("/tmp/h47a/cases/*.json")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		var c corpusCase
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(f, err)
		}
		v := Classify(c.response())
		mark := "OK  "
		if v.Class.String() != c.Class {
			mark = "MISS"
		}
		fmt.Printf("%s %-70s want=%-12s got=%-12s ev=%q\n", mark, filepath.Base(f), c.Class, v.Class, v.Evidence)
	}
}
