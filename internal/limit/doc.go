// Package limit enforces each client key's rate and budget (client_keys in
// docs/config.md): requests and tokens per minute, USD per UTC day and
// month. Counters live in fixed windows named by their start (the minute,
// the day, the month), so a window turns by itself and its counter expires.
//
// A Counter holds the counts: Memory in the process, Redis shared by every
// replica (atomic Lua scripts over hash-tagged keys, one slot per client,
// with expiry). Redis falls back to local counting while it is away, as the
// health store does, and adds the spend counted meanwhile when it is back
// (in one pipelined round trip, before the first request after is checked).
//
// Requests are counted before the call (Admit refuses the one over the
// limit). Tokens and spend are known only when the answer's usage arrives:
// Admit refuses a request when the minute's tokens or the day's or month's
// spend recorded so far has reached its cap, and Spend records them after
// the request, so the requests in flight when a cap is reached may overshoot
// it, each by at most its own cost. See docs/design.md, "Client limits".
package limit
