// Package policy is the one table that turns a failure class into behaviour:
// whether the same endpoint is retried, whether the request may move to the
// next endpoint of its target or to the next target, whether the failure
// counts against health, what cools (the endpoint or the whole provider
// account) and for how long, and whether the operator is paged.
//
// A route's strategy, fallback_on and tail_on are folded into those rules
// once, at configuration load, as a Table (one Row per class): dispatch and
// `detour check` read only the Table (docs/design.md, "One table per route").
//
// Every decision is one exhaustive switch over classify.Class; the
// `exhaustive` linter that CI runs fails the build when a class is added and
// not decided here. It imports classify and route (the strategy) only.
package policy
