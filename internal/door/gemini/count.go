package gemini

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// MediaTokens is what Estimate counts for one image or file: Gemini bills
// an image of up to 384 pixels a side as 258 tokens (larger ones as tiles
// of 258). The door does not decode media to measure them.
const MediaTokens = 258

// Estimate is the answer to :countTokens for a route whose first target is
// not Gemini (a Gemini target counts exactly): one token per 4 bytes
// (rounded up) of the text the model reads — text parts, function calls'
// args and responses, the system instruction, the function declarations —
// plus MediaTokens per inlineData or fileData part. body is a
// CountTokensRequest: its contents, or its generateContentRequest.
func Estimate(body []byte) (int, error) {
	top, err := obj(body, "request")
	if err != nil {
		return 0, err
	}
	if top == nil {
		return 0, invalid("request", "must be a CountTokensRequest object")
	}
	if g := top["generateContentRequest"]; set(g) {
		if top, err = obj(g, "generateContentRequest"); err != nil {
			return 0, err
		}
	}
	n, media := 0, 0
	if sys := top["systemInstruction"]; set(sys) {
		s, err := systemText(sys)
		if err != nil {
			return 0, err
		}
		n += len(s)
	}
	contents, err := top.list("contents", "request")
	if err != nil {
		return 0, err
	}
	for i, raw := range contents {
		where := fmt.Sprintf("contents[%d]", i)
		c, err := obj(raw, where)
		if err != nil {
			return 0, err
		}
		parts, err := c.list("parts", where)
		if err != nil {
			return 0, err
		}
		for k, praw := range parts {
			p, err := obj(praw, where+".parts["+strconv.Itoa(k)+"]")
			if err != nil {
				return 0, err
			}
			var s string
			if json.Unmarshal(p["text"], &s) == nil {
				n += len(s)
			}
			for _, k := range []string{"functionCall", "functionResponse"} {
				if set(p[k]) {
					n += len(p[k])
				}
			}
			if set(p["inlineData"]) || set(p["fileData"]) {
				media++
			}
		}
	}
	if t := top["tools"]; set(t) {
		n += len(t)
	}
	return (n+3)/4 + media*MediaTokens, nil
}

// CountTokensBody is the CountTokensResponse for an estimate of n tokens.
func CountTokensBody(n int) []byte {
	return []byte(`{"totalTokens":` + strconv.Itoa(n) + `}`)
}
