// Package provider defines the one small Adapter interface every dialect
// implements (build the upstream request, translate a complete answer,
// translate a stream) and the registry of dialects. Vendor wire structs stay
// inside each dialect's package: provider/openai, provider/anthropic,
// provider/gemini.
//
// Adapters never know about routing, health or policy. This package imports
// only classify (for the Dialect type).
package provider
