package health

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestMemory(t *testing.T) {
	runSuite(t, func(t *testing.T, now func() time.Time) Store {
		m := NewMemory()
		m.SetClock(now)
		return m
	})
}

func TestMemoryOnce(t *testing.T) {
	c := newClock()
	m := NewMemory()
	m.SetClock(c.Now)
	if !m.Claim(ctx, "quota/openai", time.Hour) {
		t.Fatal("first claim lost")
	}
	if m.Claim(ctx, "quota/openai", time.Hour) {
		t.Fatal("second claim won within ttl")
	}
	if !m.Claim(ctx, "auth/openai", time.Hour) {
		t.Fatal("another key is independent")
	}
	c.Advance(time.Hour)
	if !m.Claim(ctx, "quota/openai", time.Hour) {
		t.Fatal("claim after ttl lost")
	}
}

func TestViewStoreErrorIsHealthy(t *testing.T) {
	// A Store that fails is not a mock of behaviour: it is the contract's
	// error path, which must never deny service.
	tr := New(failing{}, Settings{}, all3, nil)
	for _, st := range tr.View(ctx, all3) {
		if st != (Status{}) {
			t.Fatalf("%+v", st)
		}
	}
	if ok, _ := tr.TryProbe(ctx, epA); !ok {
		t.Fatal("TryProbe on a failing store must allow")
	}
	if got := tr.Report(ctx, epA, fail("x")); got != nil {
		t.Fatal(got)
	}
}

type failing struct{}

func (failing) Load(context.Context, []string) ([]Record, error) { return nil, errors.New("down") }
func (failing) Update(context.Context, string, func(*Record), *Change) error {
	return errors.New("down")
}
