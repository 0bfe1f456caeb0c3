package anthropic

import (
	"fmt"
	"sync"
	"testing"
)

// Review 66p: the version cache counts a name once, however many requests
// read it first at the same time (each counted it, and a burst of one new
// model's requests at start filled the count with a single name, leaving
// every later model read by the expression on each use), and holds at most
// versionsKept names of 300 distinct ones, each read right.
func TestVersionCacheReview66p(t *testing.T) {
	versions.Range(func(k, _ any) bool { versions.Delete(k); return true })
	versionsHeld.Store(0)
	t.Cleanup(func() {
		versions.Range(func(k, _ any) bool { versions.Delete(k); return true })
		versionsHeld.Store(0)
	})
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if v, ok := claudeVersion("claude-sonnet-5-5"); !ok || v.major != 5 || v.minor != 5 {
				t.Errorf("read %+v %v", v, ok)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := versionsHeld.Load(); n != 1 {
		t.Errorf("one name read first by 64 requests at once counted %d times", n)
	}
	for i := range 300 {
		name := fmt.Sprintf("claude-opus-%d-%d-x%d", 4+i%3, i%10, i)
		v, ok := claudeVersion(name)
		if !ok || v.family != "opus" || v.major != 4+i%3 || v.minor != i%10 {
			t.Fatalf("%s read %+v %v", name, v, ok)
		}
	}
	held := 0
	versions.Range(func(_, _ any) bool { held++; return true })
	if held > versionsKept || int(versionsHeld.Load()) != held {
		t.Errorf("%d names held, counted %d; at most %d", held, versionsHeld.Load(), versionsKept)
	}
	if v, ok := claudeVersion("claude-opus-6-2-x299"); !ok || v.major != 6 || v.minor != 2 {
		t.Errorf("a name past the bound read %+v %v", v, ok)
	}
}
