package dispatch

import (
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// statusOverloaded is Anthropic's status for overloaded_error.
const statusOverloaded = 529

// inbandStatus is the HTTP status an error carried inside a 2xx answer or
// stream stands for, as its upstream would have sent it alone: Anthropic's
// overloaded_error is a 529 (Anthropic streams its overloads so, after a
// 200: review 37c), and an error whose code is an HTTP status 400–599
// (Gemini's, OpenRouter's) is that status. 0 when it says none. The client
// is then told that status, and the type its door gives it (overloaded_error
// at /v1/messages, which clients such as Claude Code look for), rather than
// the 502 a failure with no status of its own gets (statusFor).
func inbandStatus(raw []byte) int {
	e := rawjson.Member(raw, "error")
	if len(e) == 0 || e[0] != '{' {
		return 0
	}
	if string(rawjson.Member(e, "type")) == `"overloaded_error"` {
		return statusOverloaded
	}
	if n, err := strconv.Atoi(string(rawjson.Member(e, "code"))); err == nil && n >= 400 && n <= 599 {
		return n
	}
	return 0
}
