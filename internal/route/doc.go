// Package route orders a route's targets and a target's endpoints for one
// request: `ordered`, `fastest` and `pool` are pure functions from what
// health reports to an order. Nothing here does I/O, reads a clock or
// removes a candidate: health never denies service, it only moves cooling
// candidates last, soonest-to-recover first.
//
// It imports nothing of ours.
package route
