// Package rawjson reads and edits the top-level members of JSON values
// without decoding them: one member's raw value (Member, MemberSpan), a walk
// over an object's members or an array's elements (Scan), and an object
// with one member added first, every other byte as sent (WithFirst). The
// request and stream paths use it to touch the few members they need in
// bodies and events that are otherwise relayed as they came
// (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead). Those functions check no validity:
// callers pass JSON already checked. Marshal encodes as json.Marshal does,
// without its HTML escaping. Check is the check, json.Valid's
// verdict exactly, and reads chosen top-level members in the same pass, so
// an upstream's answer is read once (docs/benchmarks.md, "Round 5").
// String decodes one JSON string as encoding/json does, without reflection
// (docs/benchmarks.md, "Round 6: the doors"). AppendVisible rewrites JSON
// text with its invisible characters escaped, for the files people read.
package rawjson
