package signkey

import (
	"bytes"
	"sync/atomic"
)

// Ring is the key the gateway seals with and the one before it. A nil
// *Ring holds no key: nothing is sealed and nothing is recognised. Its
// methods are safe for concurrent use.
type Ring struct {
	p atomic.Pointer[keys]
}

type keys struct{ current, previous []byte }

// New is a ring that seals with k (nil or empty: nothing is sealed).
func New(k []byte) *Ring {
	r := &Ring{}
	r.p.Store(&keys{current: bytes.Clone(k)})
	return r
}

// Current is the key to seal with; nil for none.
func (r *Ring) Current() []byte {
	if r == nil {
		return nil
	}
	if k := r.p.Load(); k != nil {
		return k.current
	}
	return nil
}

// Keys are the keys a seal is checked against, the current first; at most
// two (a seal made under an older key is not recognised: the turn goes
// without the token, as for a token of another endpoint).
func (r *Ring) Keys() [2][]byte {
	if r == nil {
		return [2][]byte{}
	}
	k := r.p.Load()
	if k == nil {
		return [2][]byte{}
	}
	return [2][]byte{k.current, k.previous}
}

// Adopt makes k the key to seal with, keeping the current one to
// recognise; false when k is empty or already current (nothing changes).
func (r *Ring) Adopt(k []byte) bool {
	if r == nil || len(k) == 0 {
		return false
	}
	for {
		old := r.p.Load()
		var cur []byte
		if old != nil {
			cur = old.current
		}
		if bytes.Equal(cur, k) {
			return false
		}
		if r.p.CompareAndSwap(old, &keys{current: bytes.Clone(k), previous: cur}) {
			return true
		}
	}
}
