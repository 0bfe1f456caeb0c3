// Package decision defines the per-request decision record (docs/behaviour.md#decision-record): every
// attempt with its class, evidence and action, every candidate skipped and
// why, and every health transition the request caused; and the JSON-lines
// sink that writes them.
//
// Records never carry a key or prompt text: they hold only configured names,
// classes, statuses, evidence strings and timings, and for an unknown
// attempt the upstream's own message with every quoted value masked
// (UpstreamMessage: upstreams quote the client's input back in quotes);
// Scrubbed passes their free text through the process's scrubber. The
// Writer makes every write hold whole lines, ends a line a crash cut short
// before appending, and with Options.Sync fsyncs each record before Write
// returns (docs/design.md, "Decision records"). It imports nothing of ours.
package decision
