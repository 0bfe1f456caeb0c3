package decision

import (
	"math"
	"strconv"
	"time"

	"github.com/detour-llm/detour/internal/rawjson"
)

// appendJSON appends d as json.Marshal writes it, field for field, without
// reflection: the writer encodes every request's record
// (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead). It reports false, having appended
// nothing usable, for a value json.Marshal would refuse or write through a
// path this does not imitate (a NaN or infinite float, a year outside
// 0–9999); the caller then uses json.Marshal. TestAppendJSONIsMarshal and
// FuzzAppendJSON hold it to json.Marshal's output byte for byte.
func appendJSON(b []byte, d *Decision) ([]byte, bool) {
	if !marshalable(d.Time) || !finite(d.MS) {
		return b, false
	}
	b = append(b, `{"id":`...)
	b = rawjson.AppendString(b, d.ID)
	b = append(b, `,"time":"`...)
	b = d.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","route":`...)
	b = rawjson.AppendString(b, d.Route)
	b = append(b, `,"strategy":`...)
	b = rawjson.AppendString(b, d.Strategy)
	if d.API != "" {
		b = append(b, `,"api":`...)
		b = rawjson.AppendString(b, d.API)
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, d.Stream)
	b = append(b, `,"outcome":`...)
	b = rawjson.AppendString(b, d.Outcome)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(d.Status), 10)
	if d.Class != "" {
		b = append(b, `,"class":`...)
		b = rawjson.AppendString(b, d.Class)
	}
	b = append(b, `,"ms":`...)
	b = appendFloat(b, d.MS)
	b = append(b, `,"attempts":`...)
	if d.Attempts == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Attempts {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendAttempt(b, &d.Attempts[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if len(d.Skipped) > 0 {
		b = append(b, `,"skipped":[`...)
		for i, s := range d.Skipped {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"target":`...)
			b = rawjson.AppendString(b, s.Target)
			b = append(b, `,"provider":`...)
			b = rawjson.AppendString(b, s.Provider)
			b = append(b, `,"reason":`...)
			b = rawjson.AppendString(b, s.Reason)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"transitions":`...)
	if d.Transitions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range d.Transitions {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"scope":`...)
			b = rawjson.AppendString(b, t.Scope)
			b = append(b, `,"name":`...)
			b = rawjson.AppendString(b, t.Name)
			b = append(b, `,"from":`...)
			b = rawjson.AppendString(b, t.From)
			b = append(b, `,"to":`...)
			b = rawjson.AppendString(b, t.To)
			if t.Class != "" {
				b = append(b, `,"class":`...)
				b = rawjson.AppendString(b, t.Class)
			}
			if !t.Until.IsZero() {
				if !marshalable(t.Until) {
					return b, false
				}
				b = append(b, `,"until":"`...)
				b = t.Until.AppendFormat(b, time.RFC3339Nano)
				b = append(b, '"')
			}
			if !t.Since.IsZero() {
				if !marshalable(t.Since) {
					return b, false
				}
				b = append(b, `,"since":"`...)
				b = t.Since.AppendFormat(b, time.RFC3339Nano)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if d.Client != "" {
		b = append(b, `,"client":`...)
		b = rawjson.AppendString(b, d.Client)
	}
	if d.ClientKey != 0 {
		b = append(b, `,"client_key":`...)
		b = strconv.AppendInt(b, int64(d.ClientKey), 10)
	}
	if d.Usage != nil {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, d.Usage)
	}
	if d.CostUSD != nil {
		b = append(b, `,"cost_usd":`...)
		var ok bool
		if b, ok = appendUSD(b, *d.CostUSD); !ok {
			return b, false
		}
	}
	if d.CostUnknown {
		b = append(b, `,"cost_unknown":true`...)
	}
	return append(b, '}'), true
}

func appendAttempt(b []byte, a *Attempt) ([]byte, bool) {
	if !finite(a.MS) || !finite(a.TTFBMS) || !finite(a.FirstTokenMS) || !finite(a.StartMS) {
		return b, false
	}
	b = append(b, `{"target":`...)
	b = rawjson.AppendString(b, a.Target)
	b = append(b, `,"provider":`...)
	b = rawjson.AppendString(b, a.Provider)
	b = append(b, `,"model":`...)
	b = rawjson.AppendString(b, a.Model)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(a.Status), 10)
	if a.UpstreamRequestID != "" {
		b = append(b, `,"upstream_request_id":`...)
		b = rawjson.AppendString(b, a.UpstreamRequestID)
	}
	if a.Class != "" {
		b = append(b, `,"class":`...)
		b = rawjson.AppendString(b, a.Class)
	}
	if a.Evidence != "" {
		b = append(b, `,"evidence":`...)
		b = rawjson.AppendString(b, a.Evidence)
	}
	b = append(b, `,"action":`...)
	b = rawjson.AppendString(b, string(a.Action))
	b = append(b, `,"counted":`...)
	b = strconv.AppendBool(b, a.Counted)
	b = append(b, `,"billable":`...)
	b = strconv.AppendBool(b, a.Billable)
	if a.Probe {
		b = append(b, `,"probe":true`...)
	}
	b = append(b, `,"ms":`...)
	b = appendFloat(b, a.MS)
	if a.TTFBMS != 0 {
		b = append(b, `,"ttfb_ms":`...)
		b = appendFloat(b, a.TTFBMS)
	}
	if a.FirstTokenMS != 0 {
		b = append(b, `,"first_token_ms":`...)
		b = appendFloat(b, a.FirstTokenMS)
	}
	if a.RetryAfterMS != 0 {
		b = append(b, `,"retry_after_ms":`...)
		b = strconv.AppendInt(b, a.RetryAfterMS, 10)
	}
	if a.Malformed != 0 {
		b = append(b, `,"malformed":`...)
		b = strconv.AppendInt(b, int64(a.Malformed), 10)
	}
	if a.Usage != nil {
		b = append(b, `,"usage":`...)
		b = appendUsage(b, a.Usage)
	}
	if a.CostUSD != nil {
		b = append(b, `,"cost_usd":`...)
		var ok bool
		if b, ok = appendUSD(b, *a.CostUSD); !ok {
			return b, false
		}
	}
	if a.CostUnknown {
		b = append(b, `,"cost_unknown":true`...)
	}
	if a.PriceTier != "" {
		b = append(b, `,"price_tier":`...)
		b = rawjson.AppendString(b, a.PriceTier)
	}
	if e := a.Estimate; e != nil {
		b = append(b, `,"estimate":{"input_tokens":`...)
		b = strconv.AppendInt(b, int64(e.InputTokens), 10)
		b = append(b, `,"output_tokens":`...)
		b = strconv.AppendInt(b, int64(e.OutputTokens), 10)
		if e.OutputCeiling {
			b = append(b, `,"output_ceiling":true`...)
		}
		if e.USD != 0 {
			b = append(b, `,"usd":`...)
			var ok bool
			if b, ok = appendUSD(b, e.USD); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	b = append(b, `,"start_ms":`...)
	b = appendFloat(b, a.StartMS)
	if a.Message != "" {
		b = append(b, `,"message":`...)
		b = rawjson.AppendString(b, a.Message)
	}
	if c := a.Continuation; c != nil {
		b = append(b, `,"continuation":{"n":`...)
		b = strconv.AppendInt(b, int64(c.N), 10)
		b = append(b, `,"mode":`...)
		b = rawjson.AppendString(b, c.Mode)
		b = append(b, `,"offset_chars":`...)
		b = strconv.AppendInt(b, int64(c.OffsetChars), 10)
		b = append(b, `,"cut_class":`...)
		b = rawjson.AppendString(b, c.CutClass)
		b = append(b, '}')
	}
	if c := a.Batches; c != nil {
		b = append(b, `,"batches":{"of":`...)
		b = strconv.AppendInt(b, int64(c.Of), 10)
		if c.Reused != 0 {
			b = append(b, `,"reused":`...)
			b = strconv.AppendInt(b, int64(c.Reused), 10)
		}
		b = append(b, `,"answered":`...)
		b = strconv.AppendInt(b, int64(c.Answered), 10)
		b = append(b, '}')
	}
	if a.ResentWithout != "" {
		b = append(b, `,"resent_without":`...)
		b = rawjson.AppendString(b, a.ResentWithout)
	}
	return append(b, '}'), true
}

func appendUsage(b []byte, u *Usage) []byte {
	b = append(b, `{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(u.TotalTokens), 10)
	if u.CachedTokens != 0 {
		b = append(b, `,"cached_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CachedTokens), 10)
	}
	if u.CacheWriteTokens != 0 {
		b = append(b, `,"cache_write_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CacheWriteTokens), 10)
	}
	if u.CacheWrite1hTokens != 0 {
		b = append(b, `,"cache_write_1h_tokens":`...)
		b = strconv.AppendInt(b, int64(u.CacheWrite1hTokens), 10)
	}
	if u.ReasoningTokens != 0 {
		b = append(b, `,"reasoning_tokens":`...)
		b = strconv.AppendInt(b, int64(u.ReasoningTokens), 10)
	}
	if u.AudioInputTokens != 0 {
		b = append(b, `,"audio_input_tokens":`...)
		b = strconv.AppendInt(b, int64(u.AudioInputTokens), 10)
	}
	if u.AudioOutputTokens != 0 {
		b = append(b, `,"audio_output_tokens":`...)
		b = strconv.AppendInt(b, int64(u.AudioOutputTokens), 10)
	}
	if u.WebSearchRequests != 0 {
		b = append(b, `,"web_search_requests":`...)
		b = strconv.AppendInt(b, int64(u.WebSearchRequests), 10)
	}
	if u.WebFetchRequests != 0 {
		b = append(b, `,"web_fetch_requests":`...)
		b = strconv.AppendInt(b, int64(u.WebFetchRequests), 10)
	}
	if u.Incomplete {
		b = append(b, `,"incomplete":true`...)
	}
	if u.Capped {
		b = append(b, `,"capped":true`...)
	}
	return append(b, '}')
}

// appendUSD is USD.MarshalJSON without its allocation; false where that
// writes what json.Marshal then refuses (an amount so large that rounding
// it overflows).
func appendUSD(b []byte, u USD) ([]byte, bool) {
	f := float64(u)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...), true
	}
	r := math.Round(f*1e9) / 1e9
	return strconv.AppendFloat(b, r, 'f', -1, 64), finite(r)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// appendFloat writes a finite float64 as encoding/json does: the shortest
// form, in exponent notation below 1e-6 and from 1e21, with a one-digit
// negative exponent written without its leading zero.
func appendFloat(b []byte, f float64) []byte {
	// Every duration in a record is Millis: a whole number of
	// microseconds over 1000. Such a value is the double nearest k/1000,
	// so (below 1e12, where doubles are far closer together than 0.001)
	// its shortest form, which encoding/json writes, is k/1000's own
	// digits: written here without strconv's float formatting.
	if k := math.Round(f * 1000); math.Abs(k) < 1e15 && k/1000 == f && (f != 0 || !math.Signbit(f)) {
		return appendThousandths(b, int64(k))
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendThousandths writes k/1000 in decimal: the integer part, then the
// fraction's digits without trailing zeros, as strconv's shortest 'f'
// form writes the double nearest it.
func appendThousandths(b []byte, k int64) []byte {
	if k < 0 {
		b = append(b, '-')
		k = -k
	}
	b = strconv.AppendInt(b, k/1000, 10)
	if fr := k % 1000; fr != 0 {
		d := [3]byte{byte('0' + fr/100), byte('0' + fr/10%10), byte('0' + fr%10)}
		n := 3
		for d[n-1] == '0' {
			n--
		}
		b = append(append(b, '.'), d[:n]...)
	}
	return b
}

// marshalable reports whether json.Marshal writes t as RFC 3339 with
// nanoseconds, as appendJSON does: a year in 0–9999 and a zone offset
// within a day.
func marshalable(t time.Time) bool {
	_, off := t.Zone()
	y := t.Year()
	return y >= 0 && y <= 9999 && off > -24*3600 && off < 24*3600
}
