package app

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redact"
)

// Every credential the configuration holds is a secret of the scrubber:
// provider keys, client and admin keys, and the Redis passwords of every
// state form (docs/design.md, "Operator secrets").
func TestEveryConfiguredCredentialIsScrubbed(t *testing.T) {
	yaml := `client_keys: [client-Zq81mWv3, {name: team-a, key: object-Tr47Vb2w, budget: {usd_per_day: 5}}]
admin_keys: [admin-Kx52nRt7]
state:
  store: redis
  cluster: ["redis://u:cluster-Pw93Lk2@127.0.0.1:7000"]
  password: state-Hy64Bd8s
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1/v1", api_key: provider-Jm27Qa5c}
targets:
  - {name: t, model: m, providers: [p]}
`
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := redact.New(rulesFor(cfg))
	for _, secret := range []string{"client-Zq81mWv3", "object-Tr47Vb2w", "admin-Kx52nRt7", "cluster-Pw93Lk2", "state-Hy64Bd8s", "provider-Jm27Qa5c"} {
		if got := sc.String("upstream said " + secret); strings.Contains(got, secret) {
			t.Errorf("%s is not scrubbed: %q", secret, got)
		}
	}
}

// A provider header's value is a secret whatever its name, unless the
// header is one known to carry none (an attribution, a version, an
// organisation id): a gateway's key sent as X-Custom-Gateway once reached
// the logs because only names with "key", "token" and the like were read
// (review 33c).
func TestProviderHeaderValuesAreSecretsByDefault(t *testing.T) {
	yaml := `providers:
  - name: p
    dialect: openai
    base_url: "http://127.0.0.1:1/v1"
    api_key: provider-Jm27Qa5c
    headers:
      X-Custom-Gateway: gw-Lq83Zt6pRv
      X-Portkey-Config: pc-Wd52Hs9mKx
      HTTP-Referer: https://example.com/my-app
      X-Title: Example Application
      OpenAI-Organization: org-Public1234
targets:
  - {name: t, model: m, providers: [p]}
`
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := redact.New(rulesFor(cfg))
	for _, secret := range []string{"gw-Lq83Zt6pRv", "pc-Wd52Hs9mKx"} {
		if got := sc.String("upstream said " + secret); strings.Contains(got, secret) {
			t.Errorf("%s is not scrubbed: %q", secret, got)
		}
	}
	for _, public := range []string{"https://example.com/my-app", "Example Application", "org-Public1234"} {
		if got := sc.String("upstream said " + public); !strings.Contains(got, public) {
			t.Errorf("%s, a header known to carry no secret, was scrubbed: %q", public, got)
		}
	}
}
