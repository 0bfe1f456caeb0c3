// Package query reads, filters and summarises decision records: the JSON
// lines a gateway writes (read whole, or followed as the file grows) and the
// records the console keeps in memory. `detour decisions` and the console's
// Decisions page filter with the same Filter; `detour usage` and the
// console's Costs page sum usage and cost with the same Sums.
//
// It imports classify (the class names) and decision, nothing else of ours.
package query
