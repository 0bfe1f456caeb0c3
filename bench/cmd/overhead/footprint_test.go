package main

import (
	"strings"
	"testing"
)

// A callgrind dump (--dump-instr=yes, uncompressed) is read line by line:
// a call's inclusive cost is not the caller's own, code run by fewer than
// half the requests is not counted, the runtime is counted apart.
func TestReadCallgrind(t *testing.T) {
	dump := `# callgrind format
events: Ir
fl=./net/http/server.go
fn=net/http.(*conn).serve'2
0x401000 10 40
0x401004 10 40
0x401040 11 40
calls=4 0x500000 12
0x401048 12 999999
0x401050 13
fn=runtime.mallocgc
0x402000 1 400
fn=github.com/detour-llm/detour/internal/dispatch.(*walk).run
0x403000 5 3
0x403004 5 3
0x403008 5 3
0x404000 6 20
`
	ft, err := readCallgrind(strings.NewReader(dump), 10)
	if err != nil {
		t.Fatal(err)
	}
	// Hot lines: 0x401000 (its instructions ran 40 times each), 0x401040
	// (40; the call line's inclusive cost is skipped, the line with no
	// cost is 0), 0x402000 (runtime), 0x404000. 0x403000's instructions
	// ran 3 times each for 10 requests: 9 in all, but none in half.
	if ft.lines != 4 || ft.ownLines != 3 {
		t.Errorf("lines %d, outside the runtime %d; want 4 and 3", ft.lines, ft.ownLines)
	}
	if ft.pages != 3 || ft.ownPages != 2 {
		t.Errorf("pages %d, outside the runtime %d; want 3 and 2", ft.pages, ft.ownPages)
	}
	if want := float64(40+40+40+3+3+3+20) / 10; ft.ownInstr != want {
		t.Errorf("instructions a request outside the runtime %v, want %v", ft.ownInstr, want)
	}
	if ft.byPackage["net/http"] != 2 || ft.byPackage["github.com/detour-llm/detour/internal/dispatch"] != 1 || len(ft.byPackage) != 2 {
		t.Errorf("by package %v", ft.byPackage)
	}
	if _, err := readCallgrind(strings.NewReader("fn=x\n0xzz 1 2\n"), 1); err == nil {
		t.Error("a malformed cost line was read")
	}
}

func TestPkgOf(t *testing.T) {
	for fn, want := range map[string]string{
		"net/http.(*conn).serve'2":                                   "net/http",
		"github.com/detour-llm/detour/internal/dispatch.(*walk).run": "github.com/detour-llm/detour/internal/dispatch",
		"strings.ToLower":                                            "strings",
		"0x0000000000466820":                                         "0x0000000000466820",
		"type:.eq.vendor/golang.org/x/net/http2/hpack.pairNameValue": "type:.eq.vendor/golang.org/x/net/http2/hpack",
	} {
		if got := pkgOf(fn); got != want {
			t.Errorf("pkgOf(%q) = %q, want %q", fn, got, want)
		}
	}
}
