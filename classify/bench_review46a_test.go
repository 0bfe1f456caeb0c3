package classify

import (
	"encoding/json"
	"strings"
	"testing"
)

// Review 46a (d): the echo check and the reprint checks over requests the
// existing benchmarks do not hold: accented Latin text (every é opens with
// 0xC3, a byte the skip now stops at), Chinese text with fullwidth
// punctuation, a request full of %-encoded URLs, and a quoted answer
// checked against a large JSON request (memberEchoed, pairsEchoed). Each
// classifies an answer whose phrase the request does not hold, so the whole
// request is read.

func bench46a(b *testing.B, req []byte, status int, body string, want Class) {
	b.ReportAllocs()
	r := Response{Status: status, Request: req, Body: []byte(body)}
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		if v := Classify(r); v.Class != want {
			b.Fatal(v)
		}
	}
}

const benchQuota46a = `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":null}}`

func BenchmarkEchoLatinRequest_review46a(b *testing.B) {
	req := chat46a(user46a(strings.Repeat("Été à Genève : où déjeûner près du lac ? Crème brûlée, façade, naïveté. ", 800)))
	bench46a(b, req, 429, benchQuota46a, Quota)
}

func BenchmarkEchoCJKRequest_review46a(b *testing.B) {
	req := chat46a(user46a(strings.Repeat("请帮我总结一下这篇文章的主要内容，谢谢！另外：（一）背景；（二）方法。\u3000", 800)))
	bench46a(b, req, 429, benchQuota46a, Quota)
}

func BenchmarkEchoPctRequest_review46a(b *testing.B) {
	req := chat46a(user46a(strings.Repeat("see https://example.com/search?q=%E5%A6%82%E4%BD%95+%C3%A9t%C3%A9&x=a%20b ", 800)))
	bench46a(b, req, 429, benchQuota46a, Quota)
}

func BenchmarkRelayedBigRequest_review46a(b *testing.B) {
	var tools []any
	for i := 0; i < 60; i++ {
		tools = append(tools, map[string]any{"type": "function", "function": map[string]any{"name": "tool", "description": "Does a thing with the given fields.",
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string"}, "status": map[string]any{"type": "integer", "default": 1},
				"message": map[string]any{"type": "string"}, "type": map[string]any{"type": "string", "enum": []any{"a", "b"}}}, "required": []any{"code"}}}})
	}
	req, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{user46a(strings.Repeat("hello world ", 2000))}, "tools": tools})
	q, _ := json.Marshal("litellm.RateLimitError: OpenAIException - Error code: 429 - " + benchQuota46a)
	bench46a(b, req, 500, `{"error":{"message":`+string(q)+`,"type":null,"param":null,"code":"500"}}`, Quota)
}

func chat46a(msgs ...any) []byte {
	b, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": msgs, "stream": false})
	return b
}

func user46a(s string) any { return map[string]any{"role": "user", "content": s} }
