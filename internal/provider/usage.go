package provider

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// ParseUsage reads an OpenAI usage object, raw, exactly as json.Unmarshal
// into a *Usage would once its counts are whole (WholeCounts): nil for
// null, an error for what json.Unmarshal still refuses (a count in a
// string). raw must be valid JSON (a member of a body already checked).
// The plain shape every provider sends is read by a scan, without
// reflection (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead); any other shape is left to
// json.Unmarshal, with a count that is not a plain integer read as its
// floor (WholeCounts).
func ParseUsage(raw []byte) (*Usage, error) {
	if u, ok := scanUsage(raw); ok {
		return u, nil
	}
	var u *Usage
	if err := json.Unmarshal(WholeCounts(raw), &u); err != nil {
		return nil, err
	}
	return u, nil
}

var usageNames = []string{"prompt_tokens", "completion_tokens", "total_tokens", "cache_creation_input_tokens",
	"prompt_tokens_details", "completion_tokens_details", "prompt_cache_hit_tokens", "cached_tokens"}

// firstDetail is the index in usageNames of the first details object.
const firstDetail = 4

// detailMembers are the members read in each of usageNames' details.
var detailMembers = [2][]string{cachedNames, reasoningNames}

// scanUsage reads raw, or reports false when it leaves raw to json.Unmarshal.
func scanUsage(raw []byte) (*Usage, bool) {
	if string(raw) == "null" {
		return nil, true
	}
	obj, ok := rawjson.ScanObject(raw)
	if !ok {
		return nil, false
	}
	u := new(Usage)
	var seen [8]bool
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		i, sure := PlainName(k, usageNames)
		if !sure {
			return nil, false
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return nil, false
		}
		seen[i] = true
		if i == firstDetail || i == firstDetail+1 {
			n, null, ok := scanDetail(v, detailMembers[i-firstDetail])
			if !ok {
				return nil, false
			}
			switch {
			case null:
			case i == firstDetail:
				u.PromptTokensDetails = &TokenDetails{CachedTokens: n[0], CacheWriteTokens: n[1], CacheCreationTokens: Count(n[2]), AudioTokens: Count(n[3])}
			default:
				u.CompletionTokensDetails = &OutputDetails{ReasoningTokens: n[0], AudioTokens: Count(n[1])}
			}
			continue
		}
		if string(v) == "null" {
			continue
		}
		n, ok := PlainInt(v)
		if !ok {
			return nil, false
		}
		switch i {
		case 0:
			u.PromptTokens = n
		case 1:
			u.CompletionTokens = n
		case 2:
			u.TotalTokens = n
		case 3:
			u.CacheCreationInputTokens = n
		case 6:
			u.PromptCacheHitTokens = Count(n)
		case 7:
			u.CachedTokens = Count(n)
		}
	}
	return u, true
}

var (
	// cachedNames' last, LiteLLM's split of the writes, is an object: a
	// prompt_tokens_details that has one is left to encoding/json.
	cachedNames    = []string{"cached_tokens", "cache_write_tokens", "cache_creation_tokens", "audio_tokens", "cache_creation_token_details"}
	reasoningNames = []string{"reasoning_tokens", "audio_tokens"}
)

// scanDetail reads a details object v whose members read are names (at
// most 4 ints, then at most one object, which only null keeps in the scan):
// their values (0 when null or absent) and whether v is null; ok is false
// when v is left to encoding/json.
func scanDetail(v []byte, names []string) (n [4]int, null, ok bool) {
	if string(v) == "null" {
		return n, true, true
	}
	obj, ok := rawjson.ScanObject(v)
	if !ok {
		return n, false, false
	}
	var seen [5]bool
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		i, sure := PlainName(k, names)
		if !sure {
			return n, false, false
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return n, false, false
		}
		seen[i] = true
		if string(v) == "null" {
			continue
		}
		if i == len(n) { // an object
			return n, false, false
		}
		if n[i], ok = PlainInt(v); !ok {
			return n, false, false
		}
	}
	return n, false, true
}

// PlainName returns the index in names of the JSON string k (a member's key
// as written, quotes included) and true, -1 for a name not there, and false
// for a key a scan should leave to encoding/json: one with an escape or a
// non-ASCII byte, or one that matches a name only in another letter case
// (encoding/json matches names case-insensitively, with Unicode folding).
func PlainName(k []byte, names []string) (int, bool) {
	if len(k) < 2 {
		return -1, false
	}
	s := k[1 : len(k)-1]
	for _, c := range s {
		if c == '\\' || c >= 0x80 {
			return -1, false
		}
	}
	for i, n := range names {
		if string(s) == n {
			return i, true
		}
	}
	for _, n := range names {
		if len(s) == len(n) && strings.EqualFold(string(s), n) { // ASCII: folding keeps the length
			return -1, false
		}
	}
	return -1, true
}

// PlainInt reads a JSON number that is a plain integer of at most 18
// digits, one encoding/json puts in an int as it is; false for any other.
func PlainInt(v []byte) (int, bool) {
	digits := v
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}
