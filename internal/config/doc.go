// Package config decodes and validates Detour's YAML configuration (docs/config.md)
// into plain data: a *Config of strings, numbers, durations and
// classify.Rule values, with every default filled in and every cross
// reference checked. Nothing here opens a socket, starts a goroutine or
// knows how a setting is used.
//
// Decoding is strict. The file is parsed into a yaml.Node tree and walked by
// hand against the known keys, so every problem — an unknown key, a bad
// value, a name that refers to nothing, a duplicate, a route cycle, a YAML
// syntax error — is reported as "file:line: message" at the line of the
// offending key or value, flow style ({a: 1, b: 2}) included. All problems
// are collected and returned together, sorted by line, as an Errors value.
//
// Environment: "${VAR}" in any scalar value is replaced by the variable's
// value; "${VAR:-default}" uses default (which may be empty) when VAR is
// unset or empty; "$$" is a literal "$"; any other "$" is kept as written
// (so regular expressions such as "limit$" need no escaping). An unset
// variable without a default is an error. Values that came from the
// environment, and key fields (api_key, client_keys, header values, the
// redis url, the alert webhook), are never echoed in an error message.
//
// The package imports only classify of Detour's own packages.
package config
