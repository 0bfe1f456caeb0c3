// Package suggest turns the message of an answer Detour filed as unknown
// into a classify rule an operator can paste: the group it belongs to with
// answers that differ only in what varies (Text.Key, Text.Display), a
// regular expression that matches it in the raw body (Text.Regexp), a class
// to start from (Text.Class) and the rule line (Rule). The console's unknown
// answers page and `detour classify --suggest` both use it, so they group
// and suggest alike (docs/console.md).
package suggest
