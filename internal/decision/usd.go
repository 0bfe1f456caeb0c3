package decision

import (
	"math"
	"strconv"
)

// USD is an amount in US dollars, written rounded to a nano-dollar. NaN
// stands for an unknown amount and is written as null (read back, a null
// leaves the field nil: CostUnknown says why).
type USD float64

// Unknown is an unknown amount.
func Unknown() *USD { u := USD(math.NaN()); return &u }

// Known reports whether u is an amount (not nil, not unknown).
func (u *USD) Known() bool { return u != nil && !math.IsNaN(float64(*u)) }

// MarshalJSON implements json.Marshaler.
func (u USD) MarshalJSON() ([]byte, error) {
	f := float64(u)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(f*1e9)/1e9, 'f', -1, 64), nil
}
