package health

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// Replicas over one store share records by name: an endpoint by
// target/provider, an account by provider. During a rolling deploy two
// replicas can give one name two meanings — the old model and the
// corrected one, the revoked key and the rotated one — and the old
// replicas' verdicts would hold the new ones back. Define tells a tracker
// what each name means here; a record about something else reads as empty
// and is overwritten by the next write (docs/scale.md, "Rolling deploys").

// Define sets what each configured endpoint and account is: a digest
// (Digest) per endpoint key and per provider. Keys and providers absent
// from the maps, and a tracker never defined, match any record. Call it
// before the tracker is used.
func (t *Tracker) Define(endpoints map[Key]string, accounts map[string]string) {
	for k, n := range t.idx {
		n.epDef, n.acctDef = endpoints[k], accounts[k.Provider]
		t.idx[k] = n
	}
	t.acctDefs = accounts
}

// Digest is a short, one-way digest of parts, for Define: a record stores it
// in place of what it is about (a key among parts never reaches the store).
func Digest(parts ...string) string {
	h := sha256.New()
	h.Write([]byte("detour health definition\x00"))
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p)) + ":" + p))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// own empties r, read from the store, when it is about something other than
// def.
func own(r *Record, def string) {
	if def != "" && r.Def != "" && r.Def != def {
		*r = Record{}
	}
}

// adopt is own for a record about to be written: it is def's from now on.
func adopt(r *Record, def string) {
	if def != "" {
		own(r, def)
		r.Def = def
	}
}

// yields reports a success (ok) about to be written over rec, a record
// about something other than def that is cooling or probing: another
// definition's verdict (an old replica's retired model during a rolling
// deploy), which def reads as empty anyway, so the success leaves it as it
// is. Overwritten, it sent the old replicas back to the retired model at
// every success of the new ones (operator review 51b). Small enough to
// inline: it runs inside a stream handler's frame.
func yields(rec *Record, def string, ok bool, now time.Time) bool {
	return ok && def != "" && rec.Def != "" && rec.Def != def && rec.PhaseAt(now) != Healthy
}
