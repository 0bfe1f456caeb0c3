package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The plain proxy must run from a file of its own: a process of the same
// file as the load generator and the fake shares their code pages, and the
// comparison with detour would favour it (docs/benchmarks.md, "Round 9").
func TestOwnCopyIsAnotherFile(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "self")
	want := bytes.Repeat([]byte("\x7fELF and then some code "), 4096)
	if err := os.WriteFile(self, want, 0o755); err != nil {
		t.Fatal(err)
	}
	r := &runner{dir: dir}
	path, err := r.ownCopy(self, "plain-proxy")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the copy differs from the program: %d bytes, want %d", len(got), len(want))
	}
	a, b := stat(t, self), stat(t, path)
	if a.Ino == b.Ino && a.Dev == b.Dev {
		t.Fatal("the copy is the program's own file (a link), so its pages would be shared")
	}
	if b.Mode&0o100 == 0 {
		t.Fatalf("the copy is not executable: mode %o", b.Mode)
	}
	if _, err := r.ownCopy(self, "plain-proxy"); err == nil {
		t.Fatal("a second copy under the same name overwrote the first")
	}
}

func stat(t *testing.T, path string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t)
}

// The interval printed under a verdict holds the median, narrows to the
// value when every round agrees, and says which way the target lies.
func TestMedianInterval(t *testing.T) {
	lo, hi := medianInterval([]float64{7, 7, 7, 7, 7, 7})
	if lo != 7 || hi != 7 {
		t.Errorf("rounds that agree: interval %v…%v, want 7…7", lo, hi)
	}
	gaps := []float64{44, 67, 44, 82, 45, 78}
	lo, hi = medianInterval(gaps)
	if m := median(gaps); lo > m || hi < m || lo < 44 || hi > 82 || hi-lo < 10 {
		t.Errorf("six spread rounds: interval %v…%v around a median of %v", lo, hi, m)
	}
	if a, b := medianInterval(gaps); a != lo || b != hi {
		t.Errorf("the same rounds gave %v…%v, then %v…%v", lo, hi, a, b)
	}
	for _, c := range []struct {
		lo, hi, limit float64
		upTo          bool
		want          string
	}{
		{30, 45, 50, true, "all of it meets"}, {55, 80, 50, true, "none of it meets"}, {44, 82, 50, true, "inside it"},
		{1.02, 1.3, 1.0, false, "all of it meets"}, {0.8, 0.95, 1.0, false, "none of it meets"}, {0.9, 1.1, 1.0, false, "inside it"},
	} {
		if got := trustSays(c.lo, c.hi, c.limit, c.upTo); !strings.Contains(got, c.want) {
			t.Errorf("trustSays(%v, %v, %v, %v) = %q, want %q", c.lo, c.hi, c.limit, c.upTo, got, c.want)
		}
	}
}
