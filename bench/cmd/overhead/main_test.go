package main

import (
	"bytes"
	"os"
	"path/filepath"
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
