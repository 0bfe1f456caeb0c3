// Package sse is Detour's one reader and writer of server-sent events
// (text/event-stream), used for every upstream stream and for the stream the
// client receives. It bounds one line and one event's data so an upstream
// cannot grow memory without limit, accepts \n and \r\n line ends, and is
// fuzzed.
//
// It imports nothing of ours.
package sse
