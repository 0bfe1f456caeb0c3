// Package messagesfuzz fuzzes the Anthropic Messages door (POST
// /v1/messages) through a real gateway on loopback (internal/gatewaytest),
// with an Anthropic-dialect fake behind a passthrough route and an
// OpenAI-dialect fake behind a translated one.
//
// It is a package of its own, apart from e2e, so that the fuzz build
// (`make fuzz`, which instruments every package the test binary links)
// does not compile the SDKs that e2e uses as clients.
package messagesfuzz
