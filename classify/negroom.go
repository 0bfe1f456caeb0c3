package classify

import "bytes"

// vLLM's negative output budget: a prompt past the window, not bad input.

// roomLead is vLLM's wording (and that of the servers built on it: NVIDIA
// NIM, SGLang's OpenAI layer) when the output budget it computed is
// negative: "max_tokens must be at least 1, got -7584.".
const roomLead = "must be at least 1, got -"

// negativeRoom reads vLLM's answer to a prompt longer than the model's
// window when the client set no max_tokens: the server takes the window
// less the prompt as the output budget, which comes out negative, and
// refuses that (vllm-project/vllm#36789; later versions say "Input length
// … exceeds model's maximum context length" for the same request). So the
// prompt does not fit: context_length, which moves to a larger window. A
// negative count the client's request holds (it sent max_tokens: -5
// itself) is its own bad input, and ok is false.
func negativeRoom(f *facts, req []byte) (Verdict, bool) {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		j := indexFold(t, roomLead)
		if j < 0 {
			continue
		}
		n := t[j+len(roomLead):]
		k := 0
		for k < len(n) && n[k] >= '0' && n[k] <= '9' {
			k++
		}
		if k == 0 || !outputLimitBefore(t[:j]) || echoed(req, t[j:j+len(roomLead)+k]) || negativeMember(req, n[:k]) {
			// Another member's check ("n must be at least 1, got -1", the
			// client's own bad value: hostile 52), the client's words, or
			// its own negative number.
			return Verdict{}, false
		}
		return Verdict{Failed: true, Class: ContextLength, Evidence: "phrase:" + roomLead + "N"}, true
	}
	return Verdict{}, false
}

// outputLimits are the members whose negative value is vLLM's computed
// room: an output limit the client left unset.
var outputLimits = [...]string{"max_tokens", "max_completion_tokens", "max_output_tokens", "max_new_tokens"}

// outputLimitBefore reports whether before (the text up to roomLead) ends
// with an output limit's name and a blank: the check is about the output
// budget, not n, best_of or another member.
func outputLimitBefore(before []byte) bool {
	before = bytes.TrimRight(before, " '\"`\\")
	for _, m := range outputLimits {
		if hasSuffixFoldB(before, m) {
			return len(before) == len(m) || wordTab[before[len(before)-len(m)-1]] != 1
		}
	}
	return false
}

// negativeMember reports whether req sets an output limit (max_tokens,
// max_completion_tokens, max_output_tokens, max_new_tokens) to -digits
// itself (as a number or a numeric string): a negative number the client
// sent, not one inside its text ("-12"
// of a date, "max_retries": -1 in a config it pasted, whose quotes a
// request escapes).
func negativeMember(req, digits []byte) bool {
	for _, k := range [...]string{`"max_tokens"`, `"max_completion_tokens"`, `"max_output_tokens"`, `"max_new_tokens"`} {
		for off := 0; ; {
			i := bytes.Index(req[off:], []byte(k))
			if i < 0 {
				break
			}
			p := off + i + len(k)
			off = p
			for p < len(req) && (req[p] == ' ' || req[p] == '\t' || req[p] == '\n' || req[p] == '\r' || req[p] == ':') {
				p++
			}
			if p < len(req) && req[p] == '"' {
				p++ // "-5" in a string, which vLLM's pydantic reads as the number (hostile 52)
			}
			if p < len(req) && req[p] == '-' && bytes.HasPrefix(req[p+1:], digits) {
				end := p + 1 + len(digits)
				if end == len(req) || req[end] < '0' || req[end] > '9' {
					return true
				}
			}
		}
	}
	return false
}
