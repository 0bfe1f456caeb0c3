package config

import (
	"strings"
	"testing"
)

func TestConsoleAndTracingSections(t *testing.T) {
	cfg, err := Parse("c.yaml", []byte(base), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Console.Disabled || cfg.Console.Ring() != 1000 || cfg.Tracing.OTLPEndpoint != "" || cfg.Tracing.Service() != "detour" {
		t.Errorf("defaults: console %+v ring %d, tracing %+v", cfg.Console, cfg.Console.Ring(), cfg.Tracing)
	}
	cfg, err = Parse("c.yaml", []byte(base+`console: {enabled: false, ring_size: 50}
tracing: {otlp_endpoint: "http://127.0.0.1:4318", service_name: gw}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Console.Disabled || cfg.Console.Ring() != 50 || cfg.Tracing.OTLPEndpoint != "http://127.0.0.1:4318" || cfg.Tracing.Service() != "gw" {
		t.Errorf("written: console %+v, tracing %+v", cfg.Console, cfg.Tracing)
	}
	// An empty endpoint from the environment leaves tracing off.
	cfg, err = Parse("c.yaml", []byte(base+"tracing: {otlp_endpoint: \"${OTLP:-}\"}\n"), nil)
	if err != nil || cfg.Tracing.OTLPEndpoint != "" {
		t.Errorf("empty endpoint: %v, %+v", err, cfg)
	}
}

func TestConsoleAndTracingErrors(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want []wantErr
	}{
		{"console: {enabled: maybe}\n", []wantErr{{5, "console enabled must be true or false"}}},
		{"console: {ring_size: 0}\n", []wantErr{{5, "console ring_size must be at least 1"}}},
		{"console: {ring_size: 100001}\n", []wantErr{{5, "console ring_size must be at most 100000"}}},
		{"console: {size: 5}\n", []wantErr{{5, `unknown key "size" in console`}}},
		{"tracing: {otlp_endpoint: \"grpc://user:sk-pass@collector:4317\"}\n", []wantErr{{5, "tracing otlp_endpoint must be an http:// or https:// URL"}}},
		{"tracing: {otlp_endpoint: \"http://c:4318/?x=1\"}\n", []wantErr{{5, "no query"}}},
		{"tracing: {service_name: \"\"}\n", []wantErr{{5, "tracing service_name must not be empty"}}},
		{"tracing: {sample_ratio: 0.5}\n", []wantErr{{5, `unknown key "sample_ratio" in tracing`}}},
	} {
		_, err := Parse("c.yaml", []byte(base+c.yaml), nil)
		checkErrors(t, err, c.want)
		if err != nil && strings.Contains(err.Error(), "sk-pass") {
			t.Errorf("the endpoint's credentials are echoed: %v", err)
		}
	}
}
