// Package rawjson reads and edits the top-level members of JSON values
// without decoding them: one member's raw value (Member, MemberSpan), a walk
// over an object's members or an array's elements (Scan), and an object
// with one member added first, every other byte as sent (WithFirst). The
// request and stream paths use it to touch the few members they need in
// bodies and events that are otherwise relayed as they came
// (docs/benchmarks.md#overhead). It checks no validity: callers pass JSON
// already checked (json.Valid, the front's strict pass, or encoding/json's
// own output).
package rawjson
