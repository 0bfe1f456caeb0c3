package signkey

import (
	"bytes"
	"sync"
	"testing"
)

func TestNilRingHoldsNothing(t *testing.T) {
	var r *Ring
	if k := r.Keys(); r.Current() != nil || k[0] != nil || k[1] != nil || r.Adopt([]byte("k")) {
		t.Fatal("a nil ring must hold no key and adopt none")
	}
}

func TestAdoptKeepsThePreviousKeyToRecognise(t *testing.T) {
	r := New([]byte("first"))
	if r.Adopt([]byte("first")) {
		t.Error("adopting the current key changed the ring")
	}
	if r.Adopt(nil) {
		t.Error("adopting no key changed the ring")
	}
	if !r.Adopt([]byte("second")) {
		t.Fatal("a new key was not adopted")
	}
	k := r.Keys()
	if !bytes.Equal(r.Current(), []byte("second")) || !bytes.Equal(k[0], []byte("second")) || !bytes.Equal(k[1], []byte("first")) {
		t.Fatalf("keys %q, current %q; want second then first", k, r.Current())
	}
	r.Adopt([]byte("third"))
	if k := r.Keys(); !bytes.Equal(k[1], []byte("second")) {
		t.Fatalf("after a third key the previous is %q, want second (two are kept)", k[1])
	}
}

func TestAdoptCopiesTheKey(t *testing.T) {
	k := []byte("mutable")
	r := New(k)
	k[0] = 'X'
	if !bytes.Equal(r.Current(), []byte("mutable")) {
		t.Fatalf("the ring shares its caller's bytes: %q", r.Current())
	}
}

func TestConcurrentAdoptAndRead(t *testing.T) {
	r := New([]byte("a"))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				if i%2 == 0 {
					r.Adopt([]byte{byte(i), byte(j)})
				} else if len(r.Current()) == 0 {
					t.Error("a reader saw no key")
				}
			}
		}()
	}
	wg.Wait()
}
