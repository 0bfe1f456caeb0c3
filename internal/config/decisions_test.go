package config

import "testing"

func TestDecisionsSync(t *testing.T) {
	for yaml, want := range map[string]string{
		"":                             SyncNever,
		"decisions: {path: d.jsonl}\n": SyncNever,
		"decisions: {path: d.jsonl, sync: never}\n": SyncNever,
		"decisions: {sync: always}\n":               SyncAlways,
	} {
		cfg, err := Parse("c.yaml", []byte(base+yaml), nil)
		if err != nil {
			t.Fatalf("%q: %v", yaml, err)
		}
		if cfg.Decisions.Sync != want {
			t.Errorf("%q: sync %q, want %q", yaml, cfg.Decisions.Sync, want)
		}
	}
	_, err := Parse("c.yaml", []byte(base+"decisions: {sync: sometimes}\n"), nil)
	checkErrors(t, err, []wantErr{{5, `decisions sync must be one of never, always, not "sometimes"`}})
	_, err = Parse("c.yaml", []byte(base+"decisions: {sync: }\n"), nil)
	checkErrors(t, err, []wantErr{{5, "sync"}})
}
