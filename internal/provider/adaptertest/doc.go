// Package adaptertest is a test helper for the adapter packages
// (provider/anthropic, provider/gemini): it reads their golden fixtures,
// compares JSON by value, records translated streams one event a line, runs
// the stream golden files (rewriting them under each package's -update flag),
// and holds the fuzz and benchmark bodies the adapters share. Only tests
// import it.
//
// It imports provider, nothing else of ours.
package adaptertest
