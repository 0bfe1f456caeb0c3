package dispatch

import (
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Counts no answer can have (docs/config.md, "Usage and cost", "Counts
// past what an answer can have"). An upstream's usage is what Detour
// bills a client key and reports as cost; one broken or lying count (a
// self-hosted server's unsigned -1, 4294967295 completion tokens) spent a
// key's whole month in one answer (review 62b). A count past what an
// answer to the request could have used is no count, and the record says
// so (Usage.Capped): Detour's estimate stands in for it — unless the
// request had the upstream run tools of its own (serverWork), whose
// results no bound can foresee: then it is billed at the bound. Billed at
// the estimate, a client whose honest count passed the bound (a hosted
// MCP tool's loop over a document its own server returned, twenty turns)
// paid $0.02 for $10 of work, a count just past the bound costing less
// than one inside it (review 63a); billed at the bound, a broken server's
// unsigned -1 beside a plain chat would spend a small daily budget.
//
// The bounds read nothing a client chooses to mean a limit: a request's
// max_tokens does not bound its bill, since a server may read another
// member the client also sent (llama.cpp's n_predict: review 62e, one
// token billed of 4,096 written). They read the request's size and the
// answer's: what the model was given and what it wrote.

const (
	// promptBeyondBody is how many prompt tokens an answer may count
	// beyond its request's own bytes (one token is at least one byte of
	// text): media and documents fetched by URL or file id, a stored
	// conversation, a server tool's results, each read again on every
	// turn of a server tool's loop. 2^24, past the longest context
	// windows served (ten million tokens) read more than once.
	promptBeyondBody = 1 << 24
	// bodyReads is how many times a request's bytes may be counted in
	// one answer's prompt: a server tool's loop (Anthropic's web search
	// and fetch, OpenAI's hosted tools) reads the conversation again on
	// each turn and counts it each time.
	bodyReads = 16
	// reasoningRoom is how much output one choice may count beyond
	// the bytes the upstream sent (one written token is at least one byte):
	// reasoning or thinking the answer does not show (OpenAI's reasoning
	// models, Claude's thinking with its display omitted or summarised).
	// 2^18, twice the largest thinking budgets (128,000 tokens); Claude's
	// interleaved thinking across a server tool's loop spans the whole
	// turn, and a loop of many turns could pass it (review 62h: no such
	// count is on record).
	reasoningRoom = 1 << 18
	// maxChoices bounds a request's n (OpenAI allows at most 128).
	maxChoices = 128
)

// withinCeilings returns prompt and output tokens counted for an answer of
// answerBytes bytes to body, each taken down to what it can have used —
// bodyReads times the body's bytes and promptBeyondBody; the answer's
// bytes and reasoningRoom for each of the n choices body asks for — and
// whether either was past it. No body bounds nothing. The body's n is
// read only for an output past one choice's bound (the common count is
// far inside it): no walk of the body on every answer.
func withinCeilings(body []byte, answerBytes int64, prompt, output int) (int, int, bool) {
	if len(body) == 0 {
		return prompt, output, false
	}
	capped := false
	if c := min(promptBeyondBody+bodyReads*len(body), maxCount); prompt > c {
		prompt, capped = c, true
	}
	if output > outputCeiling(answerBytes, 1) {
		if c := outputCeiling(answerBytes, min(choicesBilled(body), maxChoices)); output > c {
			output, capped = c, true
		}
	}
	return prompt, output, capped
}

// outputCeiling is the most output an answer of answerBytes bytes in
// choices choices can have counted.
func outputCeiling(answerBytes int64, choices int) int {
	return min(int(min(answerBytes, maxCount))+choices*reasoningRoom, maxCount)
}

// noteCapped logs that an attempt of e's counted past what its answer
// could have used, once a minute a provider: a broken server does it on
// every answer, and each record says so already (Usage.Capped).
func (w *walk) noteCapped(e *endpointRT) {
	now := time.Now().Unix()
	last := e.prov.cappedAt.Load()
	if now-last < 60 || !e.prov.cappedAt.CompareAndSwap(last, now) {
		return
	}
	w.d.log.Warn("upstream usage past what its answer could have used: Detour's estimate stands in, or the bound where the request ran server tools (one line a minute a provider; each record says capped)",
		"target", e.key.Target, "provider", e.key.Provider, "decision", w.rec.ID)
}

// serverWork reports whether body asks the upstream to run work of its
// own whose results enter the prompt or the output beyond what the body
// holds, each turn counted again: a tool the upstream runs (hostedTool:
// OpenAI's hosted tools, mcp among them, Anthropic's server tools, xAI's
// searches; Gemini's googleSearch, codeExecution, urlContext), MCP servers (Anthropic's
// mcp_servers), a search (web_search_options, xAI's search_parameters,
// OpenRouter's plugins, DashScope's enable_search, Azure's data_sources),
// a code container, a stored prompt or cached content. Read only for a
// count past its bound. Not a stored conversation (previous_response_id,
// conversation): the Responses door refuses those, and a broken server's
// count beside one would be billed at the bound (review 63j).
func serverWork(body []byte) bool {
	for _, m := range []string{"mcp_servers", "web_search_options", "search_parameters", "plugins", "data_sources", "container", "cached_content", "cachedContent"} {
		if v := rawjson.Member(body, m); v != nil && string(v) != "null" && string(v) != "[]" && string(v) != "false" {
			return true
		}
	}
	if string(rawjson.Member(body, "enable_search")) == "true" {
		return true
	}
	if p := rawjson.Member(body, "prompt"); len(p) > 0 && p[0] == '{' { // a stored prompt, by id
		return true
	}
	tools, ok := rawjson.ScanArray(rawjson.Member(body, "tools"))
	if !ok {
		return false
	}
	for _, el, ok := tools.Next(); ok; _, el, ok = tools.Next() {
		t, _ := rawjson.String(rawjson.Member(el, "type"))
		if hostedTool(t) {
			return true
		}
		for _, g := range geminiTools {
			if rawjson.Member(el, g) != nil {
				return true
			}
		}
	}
	return false
}

// hostedTools are the type names (and the heads of the dated ones:
// web_search_20250305) of the tools an upstream runs itself: OpenAI's
// Responses tools (web_search, web_search_preview, file_search,
// code_interpreter, image_generation, mcp), Anthropic's server tools
// (web_search, web_fetch, code_execution, tool_search_tool_*), xAI's
// (web_search, x_search). Not the typed tools the client runs and answers
// (Anthropic's computer, bash, text_editor, memory; OpenAI's
// computer_use_preview, local_shell, shell, apply_patch): a request with
// them is billed as any other (review 63l: "any type but function" billed
// a computer-use turn's broken count at the bound).
var hostedTools = []string{"web_search", "web_fetch", "file_search", "code_interpreter", "code_execution",
	"image_generation", "mcp", "tool_search", "x_search", "collections_search", "google_search", "url_context"}

// geminiTools are the members of a Gemini tool object the upstream runs
// itself (its search, maps, file search, code execution, URL context, and
// Vertex's retrieval), in both spellings the API takes (review 63n: maps,
// file search and retrieval were missed).
var geminiTools = []string{"googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
	"codeExecution", "code_execution", "urlContext", "url_context", "googleMaps", "google_maps",
	"fileSearch", "file_search", "retrieval", "enterpriseWebSearch", "enterprise_web_search"}

// hostedTool reports whether t names a tool the upstream runs itself.
func hostedTool(t string) bool {
	for _, h := range hostedTools {
		if toolIs(t, h) {
			return true
		}
	}
	return false
}

// toolIs reports whether the tool type t is h or a dated or named kind of
// it (web_search_20250305, web_search_preview): h, case folded, then the
// end or an underscore.
func toolIs(t, h string) bool {
	return len(t) >= len(h) && strings.EqualFold(t[:len(h)], h) && (len(t) == len(h) || t[len(h)] == '_')
}

// useBytes is the fewest bytes an answer writes for one use of a server
// tool it reports (Anthropic's usage.server_tool_use) where the use shows
// in it: the use's own block,
// {"type":"server_tool_use","id":"","name":"web_search","input":{}} with
// its id and input empty, is 65 (web_fetch's 64), and its result block comes beside it (a
// real search's results are kilobytes: their encrypted_content). Uses run
// inside another tool (web search's dynamic filtering runs its searches in
// code execution) may show less, so any answer may count freeUses.
const (
	useBytes = 64
	freeUses = 64
)

// withinUses is n uses of a server tool an answer of answerBytes bytes
// reported, within [0, the larger of freeUses and what its bytes can
// show], and whether n was past that: a count past it is billed at the
// bound (docs/config.md, "Usage and cost", "Server tools"). A broken or
// lying count of 2^53 searches would be $9·10¹³ at $10 per 1,000; bounded,
// a small answer's is at most $0.64.
func withinUses(answerBytes int64, n int) (int, bool) {
	n = count(n)
	if c := max(int(min(max(answerBytes, 0)/useBytes, maxCount)), freeUses); n > c {
		return c, true
	}
	return n, false
}

// serverToolUses is the most uses of a server tool of the type prefix
// names (toolIs: "web_search" for Anthropic's web_search_20250305 and its
// successors, "web_fetch") that body, a request as it went, lets an answer
// run, or -1 for no bound. A tool the request never offered ran none for
// it (review 66: a broken or lying upstream billed up to freeUses searches
// to a request that asked for none); one it offered ran at most its
// max_uses, summed over the tools of that type (review 66p: past it
// Anthropic answers the tool's error, max_uses_exceeded, which it does not
// bill), or any number where one of them sets no positive whole max_uses.
// A body not read (nil) allows whatever the answer says.
func serverToolUses(body []byte, prefix string) int {
	if body == nil {
		return -1
	}
	list, ok := rawjson.ScanArray(rawjson.Member(body, "tools"))
	if !ok {
		return 0
	}
	most := 0
	for _, el, more := list.Next(); more; _, el, more = list.Next() {
		if t, _ := rawjson.String(rawjson.Member(el, "type")); !toolIs(t, prefix) {
			continue
		}
		n, err := strconv.Atoi(string(rawjson.Member(el, "max_uses")))
		if err != nil || n <= 0 {
			return -1
		}
		most = min(most+min(n, maxCount), maxCount)
	}
	return most
}

// unsetOutput is the most output one answer is taken to have had written
// where neither its request nor its target bounds it (requestOutput, the
// target's context_window): the largest output maxima served (GPT-5's and
// Claude's 128,000 tokens).
const unsetOutput = 128_000

// unreadOutput is what a whole answer's attempt that was sent and ended
// billable without an answer Detour read (a timeout of Detour's after the
// send, a 2xx body's read included; a gateway's 504 or 524)
// counts as output against a limited key (outcome.unread; docs/behaviour.md#budgets):
// the most its request allowed (requestOutput: its max_tokens,
// max_completion_tokens or max_output_tokens for each answer it asked
// for), or unsetOutput where it set none, each answer no more than the
// target's declared context_window. The upstream writes and bills that
// answer whatever became of the connection, and counting the input alone
// let a key ask for $1 answers past the timeout on a $0.50 day, for ever
// (review 67d). Body is the request as it went (finish): a native one's
// own limit (the Messages API's max_tokens) is read as sent.
//
// sent, when positive, is the limit the request went with where a
// translation wrote its own (a Claude target's max_tokens: unreadLimit).
func unreadOutput(body []byte, t *config.Target, sent int) int {
	limit, choices := requestOutput(body)
	if sent > 0 {
		limit, choices = sent, 1
	}
	if limit <= 0 {
		limit = unsetOutput
	}
	if t != nil && t.ContextWindow > 0 {
		limit = min(limit, t.ContextWindow)
	}
	if limit > maxCount/choices {
		return maxCount
	}
	return limit * choices
}
