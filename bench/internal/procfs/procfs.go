// Package procfs reads what the benchmarks measure of a process from Linux's
// /proc: one kB field of /proc/<pid>/status (VmRSS, VmHWM, RssAnon), in
// bytes. It is shared by the in-process benchmarks (bench) and the overhead
// command (bench/cmd/overhead).
package procfs

import (
	"os"
	"strconv"
	"strings"
)

// Status reads one kB field of /proc/<pid>/status ("self" for this
// process), in bytes; 0 when it cannot be read.
func Status(pid, field string) uint64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
