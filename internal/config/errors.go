package config

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a configuration file.
type Error struct {
	File string
	Line int // 1-based; 0 when the problem has no line (e.g. the file is unreadable)
	Col  int // 1-based; used only to order errors on one line
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Errors are all the problems found in one file, sorted by line. Its Error
// joins them with newlines.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

func (es Errors) sort() {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}
