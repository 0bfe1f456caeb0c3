package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHostile57bVariationSelectorsAreEscaped:
// AppendVisible escapes format characters (Cf) and C1 controls, "every
// invisible character", so that tag characters cannot hide text in the
// decision log (internal/decision/invisible_r57_test.go). Variation
// selectors (U+FE00–U+FE0F, U+E0100–U+E01EF, category Mn) carry arbitrary
// bytes the same way, one selector a byte, drawn as nothing after a visible
// character ("emoji smuggling": https://paulbutler.org/2025/smuggling-arbitrary-data-through-an-emoji/).
// The Hangul fillers (U+115F, U+1160, U+3164, U+FFA0, category Lo) and the
// combining grapheme joiner (U+034F, Mn) are blank too. Unicode lists all of
// them as Default_Ignorable_Code_Point ("rendered invisibly":
// https://www.unicode.org/reports/tr44/#Default_Ignorable_Code_Point; Go's
// unicode.Variation_Selector and unicode.Other_Default_Ignorable_Code_Point).
// Before round 57's fix an upstream's message carrying them reached
// decisions.jsonl and the JSON log raw: `cat`, `less` or `jq` showed "quota
// exceeded" and nothing of the hidden bytes.
func TestHostile57bVariationSelectorsAreEscaped(t *testing.T) {
	hidden := "rm -rf /" // one supplementary variation selector per byte
	var vs strings.Builder
	for _, b := range []byte(hidden) {
		vs.WriteRune(rune(0xE0100 + int(b) - 16))
	}
	msg := "quota exceeded\U0001F642" + vs.String() + " fill\u3164er\u115F\u1160\uFFA0 cgj\u034F vs1\uFE00"
	src, _ := json.Marshal(msg)
	out := string(AppendVisible(nil, src))
	var raw []string
	for _, r := range out {
		switch {
		case r >= 0xE0100 && r <= 0xE01EF, r >= 0xFE00 && r <= 0xFE0F, r == 0x3164, r == 0x115F, r == 0x1160, r == 0xFFA0, r == 0x034F:
			raw = append(raw, string(r))
		}
	}
	if len(raw) > 0 {
		t.Errorf("AppendVisible left %d invisible (Default_Ignorable) characters raw, %+q; a terminal shows %q", len(raw), raw, "quota exceeded🙂 fill er cgj vs1")
	}
}
