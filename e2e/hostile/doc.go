// Package hostile is the hostile-input fuzz test of the HTTP front
// (docs/security.md): random client bodies and headers against random
// upstream answers, through a real gateway on loopback (internal/gatewaytest).
//
// It is a package of its own, apart from e2e, so that the fuzz build
// (`make fuzz`, which instruments every package the test binary links)
// does not compile the OpenAI SDK that e2e uses as a client.
package hostile
