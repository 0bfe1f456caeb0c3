package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Configuration reloads, under the names Prometheus and Alertmanager give
// theirs, so the rule that pages on a failed reload of those pages on
// Detour's too (operator review 56: a refused reload was in the log alone,
// and a fleet half on the new file could not be seen).
func (m *Metrics) registerReload() {
	m.reloadOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "detour_config_last_reload_successful",
		Help: "1 when the last configuration reload (SIGHUP) was applied, or none was tried since start; 0 when it was refused and the replica serves the configuration it had (the log says why).",
	})
	m.reloadAt = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "detour_config_last_reload_success_timestamp_seconds",
		Help: "Unix time at which the configuration being served was loaded: the start, or the last reload applied.",
	})
	m.reg.MustRegister(m.reloadOK, m.reloadAt)
}

// ConfigLoaded records a configuration loaded at at: the start's, or a
// reload's (ok), or a reload refused (not ok: the time is left).
func (m *Metrics) ConfigLoaded(ok bool, at time.Time) {
	if m == nil {
		return
	}
	if !ok {
		m.reloadOK.Set(0)
		return
	}
	m.reloadOK.Set(1)
	m.reloadAt.Set(float64(at.UnixNano()) / 1e9)
}
