package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestFrontKeys(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(base+`cors:
  allowed_origins: ["https://App.Example:443", "http://localhost:3000", "chrome-extension://abcdef", "http://[::1]:80"]
allowed_hosts: [Detour.Internal., gw.example.com]
max_inflight_body_bytes: 16777216
admin_listen: 127.0.0.1:9090
admin_keys: [admin-key, "${EMPTY:-}"]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://app.example", "http://localhost:3000", "chrome-extension://abcdef", "http://[::1]"}; !reflect.DeepEqual(cfg.CORS.AllowedOrigins, want) {
		t.Errorf("origins %q, want %q", cfg.CORS.AllowedOrigins, want)
	}
	if want := []string{"detour.internal", "gw.example.com"}; !reflect.DeepEqual(cfg.AllowedHosts, want) {
		t.Errorf("hosts %q, want %q", cfg.AllowedHosts, want)
	}
	if cfg.MaxInflightBodyBytes != 16<<20 || cfg.AdminListen != "127.0.0.1:9090" || !reflect.DeepEqual(cfg.AdminKeys, []string{"admin-key"}) {
		t.Errorf("inflight %d, admin %q %q", cfg.MaxInflightBodyBytes, cfg.AdminListen, cfg.AdminKeys)
	}
}

func TestFrontDefaults(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxInflightBodyBytes != 64<<20 || cfg.AdminListen != "" || cfg.AdminKeys != nil || cfg.CORS.AllowedOrigins != nil || cfg.AllowedHosts != nil {
		t.Errorf("defaults: %d %q %q %q %q", cfg.MaxInflightBodyBytes, cfg.AdminListen, cfg.AdminKeys, cfg.CORS.AllowedOrigins, cfg.AllowedHosts)
	}
	// A larger max_body_bytes raises the default allowance to one body.
	cfg, err = Parse("c.yaml", []byte(base+"max_body_bytes: 104857600\n"), nil)
	if err != nil || cfg.MaxInflightBodyBytes != 100<<20 {
		t.Errorf("with max_body_bytes 100 MiB: %v, %d", err, cfg.MaxInflightBodyBytes)
	}
}

func TestFrontErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []wantErr
	}{
		{"wildcard origin", "cors: {allowed_origins: [\"*\"]}\n", []wantErr{{5, `"*" is not supported`}}},
		{"null origin", "cors: {allowed_origins: [\"null\"]}\n", []wantErr{{5, `"null" is not allowed`}}},
		{"origin with a slash", "cors: {allowed_origins: [\"https://a.example/\"]}\n", []wantErr{{5, `must be scheme://host[:port] only`}}},
		{"origin with a path", "cors:\n  allowed_origins:\n    - https://a.example/app\n", []wantErr{{7, `must be scheme://host[:port] only`}}},
		{"origin without scheme", "cors: {allowed_origins: [a.example]}\n", []wantErr{{5, `must be an origin such as https://app.example.com, not "a.example"`}}},
		{"unknown cors key", "cors: {origins: [https://a.example]}\n", []wantErr{{5, `unknown key "origins" in cors`}}},
		{"host with a port", "allowed_hosts: [\"gw.example:8080\"]\n", []wantErr{{5, `allowed_hosts entry must be a host name`}}},
		{"host as a URL", "allowed_hosts: [\"https://gw.example\"]\n", []wantErr{{5, `allowed_hosts entry must be a host name`}}},
		{"inflight zero", "max_inflight_body_bytes: 0\n", []wantErr{{5, `max_inflight_body_bytes must be a whole number of bytes greater than zero`}}},
		{"inflight below one body", "max_body_bytes: 2048\nmax_inflight_body_bytes: 1024\n", []wantErr{{6, `max_inflight_body_bytes (1024) is smaller than max_body_bytes (2048)`}}},
		{"admin_listen not an address", "admin_listen: localhost\n", []wantErr{{5, `admin_listen must be host:port`}}},
		{"admin_listen same as listen", "listen: 127.0.0.1:8080\nadmin_listen: 127.0.0.1:8080\n", []wantErr{{6, `admin_listen is the same address as listen`}}},
		{"admin key with a space", "admin_keys: [\"adm key-9\"]\n", []wantErr{{5, `admin_keys entry contains whitespace or a control character (value not shown)`}}},
		{"client key with a newline", "client_keys: [\"ck-1\\n\"]\n", []wantErr{{5, `client_keys entry contains whitespace or a control character (value not shown)`}}},
		// A client holding an admin key could read the operator endpoints
		// that "client keys do not open".
		{"admin key is a client key", "client_keys:\n  - {name: team-a, key: shared-key-9}\nadmin_keys: [shared-key-9]\n",
			[]wantErr{{6, `client key "team-a" has the same key as an entry of admin_keys (value not shown)`}}},
		{"admin key is a bare client key", "client_keys: [shared-key-9]\nadmin_keys: [shared-key-9]\n",
			[]wantErr{{5, `has the same key as an entry of admin_keys (value not shown)`}}},
		{"admin key hashed by a client key", "client_keys:\n  - {name: ci, key_sha256: \"ea605c9f606f560fff4aa1f2cfd24965772dbb725b3f8da1d56a54d5a8083305\"}\nadmin_keys: [shared-key-9]\n",
			[]wantErr{{6, `client key "ci" has the same key as an entry of admin_keys (value not shown)`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(base+tc.yaml), nil)
			checkErrors(t, err, tc.want)
			if err != nil && strings.HasPrefix(tc.name, "admin key") && strings.Contains(err.Error(), "key-9") {
				t.Errorf("the key is echoed: %v", err)
			}
		})
	}
}
