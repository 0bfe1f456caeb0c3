package testutil

import "time"

// Health is GET /v1/health as a client decodes it (README, "HTTP API"): the
// fields the end-to-end tests read, with the JSON names the gateway answers
// with. Pointers are null until set: CooldownUntil
// while not cooling, LatencyMS until measured.
type Health struct {
	Status    string           `json:"status"`
	Endpoints []HealthEndpoint `json:"endpoints"`
	Accounts  []HealthAccount  `json:"accounts"`
}

// HealthEndpoint is one target/provider pair in Health.
type HealthEndpoint struct {
	Target        string     `json:"target"`
	Provider      string     `json:"provider"`
	Model         string     `json:"model"`
	State         string     `json:"state"`
	Failures      int        `json:"failures"`
	LastClass     string     `json:"last_class"`
	CooldownUntil *time.Time `json:"cooldown_until"`
	LatencyMS     *float64   `json:"latency_ms"`
	// CoolingClass is the class that started the cooldown holding the
	// endpoint back, CoolingMessage the upstream's words for it.
	CoolingClass   string `json:"cooling_class"`
	CoolingMessage string `json:"cooling_message"`
	// DownSince is since when it has been out; nil while healthy.
	DownSince *time.Time `json:"down_since"`
}

// HealthAccount is one provider account in Health.
type HealthAccount struct {
	Name          string     `json:"name"`
	State         string     `json:"state"`
	LastClass     string     `json:"last_class"`
	CooldownUntil *time.Time `json:"cooldown_until"`
	// As HealthEndpoint's, the account's own.
	CoolingClass   string `json:"cooling_class"`
	CoolingMessage string `json:"cooling_message"`
	// DownSince is since when it has been out; nil while healthy.
	DownSince *time.Time `json:"down_since"`
}

// Endpoint returns the entry of target/provider, and whether there is one.
func (h Health) Endpoint(target, provider string) (HealthEndpoint, bool) {
	for _, e := range h.Endpoints {
		if e.Target == target && e.Provider == provider {
			return e, true
		}
	}
	return HealthEndpoint{}, false
}

// Account returns the entry of the named account, and whether there is one.
func (h Health) Account(name string) (HealthAccount, bool) {
	for _, a := range h.Accounts {
		if a.Name == name {
			return a, true
		}
	}
	return HealthAccount{}, false
}
