// Package console is the operator console at /ui: live health, a tail of
// recent decision records, attempts by class per minute, and the unknown
// answers grouped with a classify rule to copy.
//
// Console is a decision.Sink: the app tees every record into it. It keeps a
// bounded ring of recent records per replica (records only: no prompt, no
// key ever reaches it), per-minute attempt counts for the last hour, the
// last failure seen per endpoint and account (for the evidence health does
// not keep), and the unknown groups. Handler serves the pages (embedded:
// no build step, nothing fetched from the network) and their JSON.
//
// Everything upstream-written (messages, evidence) is rendered as text by
// ui/app.js, never as markup, under a Content-Security-Policy that allows
// only the console's own script and style and enforces Trusted Types.
//
// It also owns the set of requests being served now (InProgress), which
// the server fills and the Decisions page lists as "In progress".
//
// It imports classify, config, decision, health, inprogress, policy, query
// and suggest; never the server or dispatch.
package console
