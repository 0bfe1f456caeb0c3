package decision

import "testing"

// Input's three parts stay within the prompt whatever the counts say, so
// the cost, the metrics and `detour usage` never count a token twice or
// below zero.
func TestUsageInput(t *testing.T) {
	for _, c := range []struct {
		u                      Usage
		plain, cached, written int
	}{
		{Usage{PromptTokens: 100, CachedTokens: 30, CacheWriteTokens: 20}, 50, 30, 20},
		{Usage{PromptTokens: 100, CachedTokens: 80, CacheWriteTokens: 50}, 0, 80, 20},
		{Usage{PromptTokens: 100, CachedTokens: 200}, 0, 100, 0},
		{Usage{PromptTokens: 100, CachedTokens: -5, CacheWriteTokens: -5}, 100, 0, 0},
		{Usage{PromptTokens: -10, CachedTokens: 5, CacheWriteTokens: 5}, 0, 0, 0},
	} {
		p, ca, w := c.u.Input()
		if p != c.plain || ca != c.cached || w != c.written {
			t.Errorf("%+v: %d %d %d, want %d %d %d", c.u, p, ca, w, c.plain, c.cached, c.written)
		}
	}
}

// The 1-hour cache's writes are a part of the written input, never more:
// a log read back may say anything.
func TestUsageWritten1h(t *testing.T) {
	for _, c := range []struct {
		u    Usage
		want int
	}{
		{Usage{PromptTokens: 100, CacheWriteTokens: 40, CacheWrite1hTokens: 30}, 30},
		{Usage{PromptTokens: 100, CacheWriteTokens: 40, CacheWrite1hTokens: 90}, 40},
		{Usage{PromptTokens: 100, CachedTokens: 80, CacheWriteTokens: 50, CacheWrite1hTokens: 50}, 20},
		{Usage{PromptTokens: 100, CacheWriteTokens: 40, CacheWrite1hTokens: -3}, 0},
		{Usage{PromptTokens: 100, CacheWrite1hTokens: 10}, 0},
	} {
		if got := c.u.Written1h(); got != c.want {
			t.Errorf("%+v: %d, want %d", c.u, got, c.want)
		}
	}
}
