package classify

import (
	"bytes"
	"encoding/json"
	"strings"
)

// chatMembers are the top-level members of the request body of OpenAI's
// Chat Completions API (https://platform.openai.com/docs/api-reference/chat/create),
// the API the OpenAI dialect speaks, but for model and messages, which
// every server takes. A server that refuses one of them as unknown to its
// schema has a copy of the API that lags: another target serves the
// request (docs/config.md, "A server whose copy of an API lags").
var chatMembers = map[string]bool{
	"audio": true, "frequency_penalty": true, "function_call": true, "functions": true,
	"logit_bias": true, "logprobs": true, "max_completion_tokens": true, "max_tokens": true,
	"metadata": true, "modalities": true, "n": true, "parallel_tool_calls": true,
	"prediction": true, "presence_penalty": true, "prompt_cache_key": true,
	"prompt_cache_retention": true, "reasoning_effort": true, "response_format": true,
	"safety_identifier": true, "seed": true, "service_tier": true, "stop": true, "store": true,
	"stream": true, "stream_options": true, "temperature": true, "tool_choice": true,
	"tools": true, "top_logprobs": true, "top_p": true, "user": true, "verbosity": true,
	"web_search_options": true,
}

// pydanticItem is one entry of a FastAPI/pydantic detail list.
type pydanticItem struct {
	Type string            `json:"type"`
	Loc  []json.RawMessage `json:"loc"`
	Msg  string            `json:"msg"`
}

// detailItems returns the entries of the first detail list of body, a
// FastAPI/pydantic validation answer ({"detail":[…]}, or inside Mistral's
// message: {"message":{"detail":[…]}}), nil where there is none or the
// body is no whole JSON object. Only a body that names a loc is decoded.
func detailItems(body []byte) []pydanticItem {
	if !bytes.Contains(body, []byte(`"loc"`)) || !bytes.Contains(body, []byte(`"detail"`)) {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return nil
	}
	for depth := 0; depth < 3 && top != nil; depth++ {
		if raw, ok := top["detail"]; ok {
			var items []pydanticItem
			if json.Unmarshal(raw, &items) != nil {
				return nil
			}
			return items
		}
		var next map[string]json.RawMessage
		for _, k := range [...]string{"message", "error"} {
			if raw, ok := top[k]; ok && json.Unmarshal(raw, &next) == nil {
				break
			}
			next = nil
		}
		top = next
	}
	return nil
}

// locString is a loc's string element, "" for an index or anything else.
func locString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// locPath joins a loc's elements with dots: ["body","tools",0,"type"] is
// body.tools.0.type.
func locPath(loc []json.RawMessage) string {
	var b strings.Builder
	for i, e := range loc {
		if i > 0 {
			b.WriteByte('.')
		}
		if s := locString(e); s != "" {
			b.WriteString(s)
		} else {
			b.Write(bytes.Trim(e, `"`))
		}
	}
	return b.String()
}

// A detailEntry is what the walk has read of one entry of a detail list:
// its type, and which of the shapes the rules know its loc still fits.
type detailEntry struct {
	typ  uint8 // entryExtra, entryLiteral, entryOther; 0 for none yet
	nLoc uint8 // loc elements read
	fits uint8 // locChat, locTool: the shapes every element so far fits
}

const (
	entryExtra = iota + 1
	entryLiteral
	entryOther
)

const (
	locChat = 1 << iota // ["body", <chatMembers>]
	locTool             // ["body", "tools", N, "type"]
)

// add reads one scalar of the entry: its type, or an element of its loc.
func (e *detailEntry) add(key, v []byte, str bool) {
	switch string(key) {
	case "type":
		switch {
		case str && eq(v, "extra_forbidden"):
			e.typ = entryExtra
		case str && eq(v, "literal_error"):
			e.typ = entryLiteral
		default:
			e.typ = entryOther
		}
	case "loc":
		if e.nLoc == 0 {
			e.fits = locChat | locTool
		}
		switch e.nLoc {
		case 0:
			if !str || !eq(v, "body") {
				e.fits = 0
			}
		case 1:
			if !str || !chatMembers[string(v)] {
				e.fits &^= locChat
			}
			if !str || !eq(v, "tools") {
				e.fits &^= locTool
			}
		case 2:
			e.fits &^= locChat
			if str || !digits(v) {
				e.fits &^= locTool
			}
		case 3:
			if !str || !eq(v, "type") {
				e.fits &^= locTool
			}
		default:
			e.fits = 0
		}
		if e.nLoc < 255 {
			e.nLoc++
		}
	}
}

// endDetailEntry closes the entry being read.
func (f *facts) endDetailEntry() {
	e := f.item
	extra := e.typ == entryExtra && e.nLoc == 2 && e.fits&locChat != 0
	tool := e.typ == entryLiteral && e.nLoc == 4 && e.fits&locTool != 0
	if f.detailN == 0 {
		f.detailExtra, f.detailTool = true, true
	}
	f.detailExtra = f.detailExtra && extra
	f.detailTool = f.detailTool && tool
	if f.detailN < 255 {
		f.detailN++
	}
	f.detailOpen = false
}

// digits reports a non-empty run of ASCII digits.
func digits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(v) > 0
}

// lagMemberRefused reports a pydantic detail list whose every entry is
// extra_forbidden at ["body","<m>"], m a documented top-level Chat
// Completions member (chatMembers): the server does not know a member of
// the API it emulates (Mistral's 422 for verbosity, safety_identifier,
// prompt_cache_key, probe 54a). A nested loc (a message's
// reasoning_content), a name the API does not have (a typo), another
// error beside it, or an entry a cut body leaves open is not. The
// structure is the server's own: the client's words quoted inside a
// message string are never read as it (a relay's quoted answer is read as
// the answer, inner.go).
func lagMemberRefused(f *facts, req []byte) bool {
	if f.detailN > 0 {
		return !f.detailOpen && f.detailExtra
	}
	return quotedDetail(f, req, func(g *facts) bool { return g.detailN > 0 && !g.detailOpen && g.detailExtra })
}

// quotedDetail reports whether a text of f is a detail list quoted whole
// ({"detail":[…]} as a string: Mistral's older 422 held its list in
// message, and a relay quoting that answer quotes it once more, where the
// quoted answer is read only once, inner.go) whose facts satisfy ok. A
// text the client's request holds is no evidence.
func quotedDetail(f *facts, req []byte, ok func(*facts) bool) bool {
	const open = `{\"detail\":`
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):]
		if !bytes.HasPrefix(t, []byte(open)) || echoed(req, t) {
			continue
		}
		buf := textBufs.Get()
		d, good := unescapeString(buf[:0], t)
		var s scanner
		if good {
			s.readBody(d)
		}
		yes := good && ok(&s.f)
		textBufs.Put(buf)
		if yes {
			return true
		}
	}
	return false
}

// toolTypeLiteralDetail is toolTypeLiteral for a detail list (FastAPI's
// own answer): every entry a literal_error at ["body","tools",N,"type"].
func toolTypeLiteralDetail(f *facts, req []byte) bool {
	if f.detailN > 0 {
		return !f.detailOpen && f.detailTool
	}
	return quotedDetail(f, req, func(g *facts) bool { return g.detailN > 0 && !g.detailOpen && g.detailTool })
}

// toolTypeLiteral reports pydantic's literal_error at a tool's type
// (vLLM's ChatCompletionToolsParam.type is Literal["function"]: "[{'type':
// 'literal_error', 'loc': ('body', 'tools', 0, 'type'), 'msg': \"Input
// should be 'function'\", …}]", probe 54a, given a GPT-5 custom tool): a
// tool type the server's schema lacks, as LM Studio's "Invalid
// discriminator value" (toolTypeVariant). Every entry must be one, in the
// str() of pydantic's errors opening a message. A message the client's
// request holds is no evidence.
func toolTypeLiteral(f *facts, req []byte) bool {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):]
		if !bytes.HasPrefix(t, []byte("[{'type': '")) || echoed(req, t) {
			continue
		}
		ok, rest := true, t[1:]
		for n := 0; ok; n++ {
			k := bytes.Index(rest, []byte("{'type': '"))
			if k < 0 {
				ok = n > 0
				break
			}
			e := rest[k+len("{'type': '"):]
			ok = bytes.HasPrefix(e, []byte("literal_error'")) && toolTypeTuple(e)
			rest = e
		}
		if ok {
			return true
		}
	}
	return false
}

// toolTypeTuple reports the loc ('body', 'tools', N, 'type') in one entry
// of pydantic's errors printed by Python.
func toolTypeTuple(e []byte) bool {
	const open, tail = "'loc': ('body', 'tools', ", ", 'type')"
	i := bytes.Index(e, []byte(open))
	if i < 0 {
		return false
	}
	r := e[i+len(open):]
	j := 0
	for j < len(r) && r[j] >= '0' && r[j] <= '9' {
		j++
	}
	return j > 0 && bytes.HasPrefix(r[j:], []byte(tail))
}

// toolChoiceNoFunction reports vLLM's refusal of a tool_choice object
// without a function ("Invalid value for `function`: `None` in
// `tool_choice`! Correct usage: …", check_tool_usage in
// vllm/entrypoints/openai/chat_completion/protocol.py, PR #19239) where the
// client's tool_choice is one of the Chat Completions API's other
// documented types, allowed_tools or custom
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice):
// the server's copy lags, another target serves it. A function choice that
// lacks its function is the client's mistake; with no request, nothing is
// known. Words the client's request holds are no evidence.
func toolChoiceNoFunction(f *facts, req []byte) bool {
	const said = "invalid value for `function`: `none` in `tool_choice`"
	if len(req) == 0 {
		return false
	}
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if k := indexFold(t, said); k >= 0 && !echoed(req, t) && !echoed(req, t[k:k+len(said)]) {
			var r struct {
				ToolChoice struct {
					Type string `json:"type"`
				} `json:"tool_choice"`
			}
			if requestDoc(req, &r) != nil {
				return false
			}
			return r.ToolChoice.Type == "allowed_tools" || r.ToolChoice.Type == "custom"
		}
	}
	return false
}

// nAtMostOne reports a server that serves one choice only, refusing a
// request's n above 1 ("'n' : number must be at most 1", Groq, whose docs
// say "only n=1 is supported. Other values will result in a 400 response",
// console.groq.com/docs/api-reference#chat-create; "n must be at most 1",
// "n: must be less than or equal to 1", "only n=1 is supported"): OpenAI
// and Gemini serve several, so the route moves on, as at a Claude target
// (docs/doors.md). The request must carry n above 1; the words must open
// the message (a relay's labels aside) and not be the client's.
func nAtMostOne(f *facts, req []byte) bool {
	if len(req) == 0 {
		return false
	}
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):]
		if !nCapOne(t) || echoed(req, t) {
			continue
		}
		var r struct {
			N *int `json:"n"`
		}
		return requestDoc(req, &r) == nil && r.N != nil && *r.N > 1
	}
	return false
}

// nCapOne reports a text that opens with the member n, quoted or bare, an
// optional colon, and a cap of 1, or says "only n=1 is supported".
func nCapOne(t []byte) bool {
	if hasPrefixFold(t, "only n=1 is supported") || hasPrefixFold(t, "only n = 1 is supported") {
		return true
	}
	switch {
	case len(t) > 3 && (t[0] == '\'' || t[0] == '"' || t[0] == '`') && t[1] == 'n' && t[2] == t[0]:
		t = t[3:]
	case len(t) > 1 && t[0] == 'n' && (t[1] == ' ' || t[1] == ':'):
		t = t[1:]
	default:
		return false
	}
	t = bytes.TrimLeft(t, " ")
	if len(t) > 0 && t[0] == ':' {
		t = bytes.TrimLeft(t[1:], " ")
	}
	if hasPrefixFold(t, "number ") {
		t = t[len("number "):]
	}
	for _, cap := range [...]string{"must be at most 1", "must be less than or equal to 1", "must be <= 1"} {
		if hasPrefixFold(t, cap) && (len(t) == len(cap) || t[len(cap)] < '0' || t[len(cap)] > '9') {
			return true
		}
	}
	return false
}

// hasPrefixFold reports whether t begins with p (p in lower case), ASCII
// case folded.
func hasPrefixFold(t []byte, p string) bool {
	return len(t) >= len(p) && foldEq(t[:len(p)], p)
}

// requestDoc decodes the client's request body, the first JSON value of
// req: an error answer's Response.Request holds after it what else the
// client chose that an upstream may quote (forwarded header values, the
// body Detour sent the upstream), which a whole-document decode refused
// (hostile 58's evidence broke the tool_choice and n readings above).
func requestDoc(req []byte, v any) error {
	return json.NewDecoder(bytes.NewReader(req)).Decode(v)
}
