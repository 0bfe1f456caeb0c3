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
	yaml := `client_keys: [client-Zq81mWv3]
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
	for _, secret := range []string{"client-Zq81mWv3", "admin-Kx52nRt7", "cluster-Pw93Lk2", "state-Hy64Bd8s", "provider-Jm27Qa5c"} {
		if got := sc.String("upstream said " + secret); strings.Contains(got, secret) {
			t.Errorf("%s is not scrubbed: %q", secret, got)
		}
	}
}
