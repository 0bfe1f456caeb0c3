package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// commit is the commit the binary was built from when the build says it
// with -ldflags "-X main.commit=…" (the Dockerfile and `make build` do:
// a build without VCS stamping, as the image's, names none otherwise).
var commit string

// runVersion prints what this binary is, for a bug report: the module's
// version (v1.2.3, or "(devel)" when built from a checkout), the commit it
// was built from and whether the tree had changes, and the Go version.
func runVersion(stdout io.Writer) int {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "detour: no build information in this binary")
		return 0
	}
	line := "detour " + info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		rev = commit
	}
	if rev != "" {
		line += " commit " + rev
		if modified == "true" {
			line += " (modified)"
		}
	}
	fmt.Fprintln(stdout, line+" "+info.GoVersion)
	return 0
}
