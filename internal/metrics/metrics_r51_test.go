package metrics

import "testing"

// Review 51a: deploy/alerts.yml pages on
//
//	sum by (provider, class) (increase(detour_cooldowns_total{scope="account"}[10m])) > 0
//
// and DetourAlertsNotDelivered on increase(detour_alerts_total{result="failed"}[15m]).
// Both series are created by their first Inc, so Prometheus first sees them
// at 1; increase() over a series whose every sample is 1 is 0 (it has no
// earlier sample to subtract from: prometheus/prometheus#1673), and the
// first account cooldown of a provider for a class since the process
// started — an account that ran out of money, the event the rule exists
// for — pages nobody. The Prometheus instrumentation guide ("Avoid missing
// metrics": https://prometheus.io/docs/practices/instrumentation/#avoid-missing-metrics)
// says to export 0 for label sets known in advance: the configured
// providers × quota/auth for accounts are known at Retain.
func TestR51aAccountCooldownSeriesExistAtZero(t *testing.T) {
	m := New()
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"a"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"a", "p"}}})
	f := scrape(t, m)
	for _, class := range []string{"quota", "auth"} {
		if series(f, "detour_cooldowns_total", "scope=account", "target=none", "provider=p", "class="+class) == nil {
			t.Errorf("no detour_cooldowns_total{scope=account,provider=p,class=%s} before the first cooldown: the first one appears at 1 and increase() in deploy/alerts.yml reads 0", class)
		}
	}
}
