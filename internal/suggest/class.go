package suggest

import (
	"strings"

	"github.com/detour-llm/detour/classify"
)

// classWords is the keyword heuristic: the first class with a word found in
// the message (lower case, quoted values masked) is suggested. Money before
// keys (an "invalid" balance is still money), keys before limits, and
// generic bad-input words last.
var classWords = []struct {
	class classify.Class
	words []string
}{
	{classify.Quota, []string{"balance", "credit", "billing", "payment", "paid plan", "funds", "quota", "spend", "budget",
		"arrears", "top up", "recharge", "subscription", "欠费", "余额", "额度", "充值", "账单"}},
	{classify.Auth, []string{"api key", "apikey", "api-key", "token is invalid", "invalid token", "unauthorized",
		"unauthenticated", "authentication", "credential", "signature", "鉴权", "认证", "密钥"}},
	{classify.RateLimited, []string{"rate limit", "too many requests", "throttl", "slow down", "per minute",
		"concurrency", "concurrent", "频率", "限流", "请求过多"}},
	{classify.ContextLength, []string{"context", "too long", "token limit", "maximum length", "上下文", "超长"}},
	{classify.Overflow, []string{"too large", "payload", "body size"}},
	{classify.Unavailable, []string{"not found", "does not exist", "no such model", "not available", "decommission",
		"deprecated", "retired", "offline", "模型不存在", "下线"}},
	{classify.Forbidden, []string{"permission", "forbidden", "not allowed", "access denied", "region", "country", "权限"}},
	{classify.Refusal, []string{"safety", "content policy", "moderation", "sensitive", "inappropriate", "harmful",
		"敏感", "违规", "审核"}},
	{classify.Timeout, []string{"timeout", "timed out", "deadline", "超时"}},
	{classify.ServerError, []string{"internal", "overloaded", "busy", "try again later", "unavailable", "繁忙", "服务异常"}},
	{classify.BadRequest, []string{"invalid", "must be", "required", "missing", "unsupported", "parameter",
		"format", "schema", "json", "参数"}},
}

// Class suggests a class for an unknown answer of status whose message
// reads t: the class of the first keyword found in the message, and that
// keyword; with none, the class the status usually means, and "". A
// starting point for the operator's choice, read from words, not from
// meaning. A message with no word to match on (Literal) gets a rule without
// a match, which takes every answer of its provider and status: its class
// is always the status's, never a keyword's.
func (t Text) Class(status int) (classify.Class, string) {
	if !t.Literal() {
		return statusClass(status), ""
	}
	m := t.words()
	for _, cw := range classWords {
		for _, w := range cw.words {
			if strings.Contains(m, w) {
				return cw.class, w
			}
		}
	}
	return statusClass(status), ""
}

// words is the message in lower case as the keywords are looked for in it:
// quoted values (often the client's words, echoed) left out, blanks as one
// space.
func (t Text) words() string {
	var b strings.Builder
	for _, p := range t {
		switch p.kind {
		case blank:
			b.WriteByte(' ')
		case quoted:
			b.WriteString("<q>")
		default:
			b.WriteString(strings.ToLower(p.text))
		}
	}
	return b.String()
}

// statusClass is the class a status usually means: the classifier's own
// default (classify.StatusClass), and bad_request where that is unknown (a
// 4xx such as 400, which an operator's rule is written to settle).
func statusClass(status int) classify.Class {
	if c := classify.StatusClass(status); c != classify.Unknown {
		return c
	}
	return classify.BadRequest
}
