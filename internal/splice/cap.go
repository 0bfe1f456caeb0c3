package splice

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
)

// ErrCapSpent is LowerCap's report that the delivered answer has used all
// of the client's completion-token cap: a continuation by prefill could only
// exceed it, so the caller continues by replay, whose answer the upstream
// bounds by the cap as sent (and ends with finish_reason "length" itself).
var ErrCapSpent = errors.New("splice: the client's max_tokens is spent by the text already delivered")

// capKeys are the canonical request's completion-token caps.
var capKeys = [...]string{"max_tokens", "max_completion_tokens"}

// LowerCap returns the continuation request body with each completion-token
// cap the client set (max_tokens, max_completion_tokens) lowered by used,
// the tokens the delivered text already took (Cut.Tokens): a continuation
// by prefill generates only the rest of the answer, so the whole answer
// stays within the client's cap. body is returned unchanged when it sets no
// cap (the dialect's default applies, as to the first attempt) or used is
// 0; a cap that is not a number is left for the upstream to judge. A cap
// that used reaches or passes is ErrCapSpent.
func LowerCap(body []byte, used int) ([]byte, error) {
	if used <= 0 {
		return body, nil
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		return nil, errors.New("splice: request body is not a JSON object")
	}
	changed := false
	for _, k := range capKeys {
		raw, ok := req[k]
		if !ok || isNull(raw) {
			continue
		}
		var f float64
		if json.Unmarshal(raw, &f) != nil || f != math.Trunc(f) || f > math.MaxInt32 {
			continue
		}
		left := int(f) - used
		if left < 1 {
			return nil, fmt.Errorf("%w (%s %d, about %d delivered)", ErrCapSpent, k, int(f), used)
		}
		req[k] = mustMarshal(left)
		changed = true
	}
	if !changed {
		return body, nil
	}
	return mustMarshal(req), nil
}
