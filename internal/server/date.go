package server

import (
	"net/http"
	"sync/atomic"
	"time"
)

// The Date header of an answer. net/http formats one for every response
// whose handler set none, with the general-purpose time formatter: ~2,000
// instructions and ~5 KiB of code a request, run cold when requests are
// sparse (a reverse proxy copies the upstream's Date and never pays it).
// Detour formats it once a second and shares the value
// (docs/benchmarks.md, "Round 10").

// dateStamp is one second's formatted Date.
type dateStamp struct {
	sec int64
	val string
}

var lastDate atomic.Pointer[dateStamp]

// httpDate returns the Date header's value for now (RFC 9110's IMF-fixdate,
// as net/http writes it), formatted afresh only when the second has changed.
func httpDate() string {
	now := time.Now()
	if d := lastDate.Load(); d != nil && d.sec == now.Unix() {
		return d.val
	}
	d := &dateStamp{sec: now.Unix(), val: now.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.val
}
