package anthropic

import (
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
)

// What each Claude model refuses is read from its name's family and
// version against the tables below, never from a list of names: each row
// names the first version of a family (or of every family, "*") from which
// on Anthropic documents the refusal, so a later model (Claude 6, a Sonnet
// 6.5) takes the rules of the newest generation before it, and a new
// family (Fable, Mythos) is one row (review 66d; docs/doors.md,
// "Passthrough" and "Chat Completions to Claude and Gemini targets").

// version is a Claude model's family and version, read from its name (a
// Bedrock or Vertex id, a relay's dotted minor too): claude-sonnet-5-5 is
// sonnet 5.5, claude-opus-4-20250514 opus 4.0, claude-3-7-sonnet sonnet 3.7.
type version struct {
	family       string
	major, minor int
}

// since is a rule's table: family to the first version the rule holds
// for; "*" holds for every family.
type since map[string]version

// claudeVersion reads model's family and version; ok is false for a name
// whose family is not read. A request asks it of its model several times
// (every rule below, fitNative's and Translate's), and the models are the
// configuration's few, so a reading is kept (versionsKept at most: a name
// past them is read each time).
func claudeVersion(model string) (version, bool) {
	if r, ok := versions.Load(model); ok {
		r := r.(versionRead)
		return r.v, r.ok
	}
	v, ok := readVersion(model)
	if versionsHeld.Load() < versionsKept {
		// A name is counted once, by the request that stores it: requests
		// reading it first at once each counted it before (review 66p: a
		// burst of one new model's requests filled the count with one
		// name). A count past the bound, or of a name another stored, is
		// given back.
		if versionsHeld.Add(1) <= versionsKept {
			if _, loaded := versions.LoadOrStore(model, versionRead{v, ok}); !loaded {
				return v, ok
			}
		}
		versionsHeld.Add(-1)
	}
	return v, ok
}

// versions holds claudeVersion's readings by model name; versionsHeld
// counts them (read first, so a stream of names past the bound does not
// count on until the counter wraps).
var (
	versions     sync.Map
	versionsHeld atomic.Int32
)

// versionsKept bounds the readings kept: a configuration names far fewer
// models.
const versionsKept = 256

type versionRead struct {
	v  version
	ok bool
}

// claudeFamily reads a Claude model's family and version where they appear
// in its name: family first (claude-opus-4-1, claude-fable-5-1, a relay's
// claude-opus-4.7) or version first (claude-3-7-sonnet). It is the one
// reading of a Claude name: the output maxima (maxtokens.go) and every
// rule below go through claudeVersion.
var claudeFamily = regexp.MustCompile(`claude-(?:(opus|sonnet|haiku|fable|mythos)-(\d+)(?:[-.](\d)(?:\D|$))?|(\d)-(\d)-(sonnet|haiku|opus))`)

// readVersion is claudeVersion's reading.
func readVersion(model string) (v version, ok bool) {
	m := claudeFamily.FindStringSubmatch(model)
	switch {
	case m == nil:
		return version{}, false
	case m[1] != "":
		v.family = m[1]
		v.major, _ = strconv.Atoi(m[2])
		v.minor, _ = strconv.Atoi(m[3])
	default:
		v.family = m[6]
		v.major, _ = strconv.Atoi(m[4])
		v.minor, _ = strconv.Atoi(m[5])
	}
	return v, true
}

func (v version) atLeast(w version) bool {
	return v.major > w.major || v.major == w.major && v.minor >= w.minor
}

// holds reports whether the rule s holds for model: its family's row, or
// the row for every family, is at or below the model's version. A name
// not read holds none.
func (s since) holds(model string) bool {
	v, ok := claudeVersion(model)
	if !ok {
		return false
	}
	for _, fam := range []string{v.family, "*"} {
		if first, ok := s[fam]; ok && v.atLeast(first) {
			return true
		}
	}
	return false
}

var (
	// samplingRefused: temperature, top_p and top_k set to other than
	// their defaults are a 400. Opus 4.7 ("`temperature` is deprecated for
	// this model."; Anthropic's "Migrating to Claude Opus 4.7"), Sonnet 5
	// ("sampling parameters (temperature, top_p, top_k) set to non-default
	// values return a 400 error", platform.claude.com/docs/en/models/
	// sonnet-5/migration-guide), Sonnet 5.5 (its migration guide lists
	// "sampling parameters" among the settings that return a 400), and
	// every later model of every family: a setting dropped where a model
	// would have taken it costs the client's preference, one sent where it
	// is refused costs the request.
	samplingRefused = since{"opus": {"opus", 4, 7}, "*": {"", 5, 0}}
	// budgetRefused: thinking {"type":"enabled","budget_tokens":N} is a
	// 400 ("\"thinking.type.enabled\" is not supported for this model"):
	// Opus 4.7 and later, Sonnet 5 ("manual extended thinking … returns a
	// 400 error", its migration guide), Opus 5.5 and Fable 5.1 (their
	// what's-new and migration pages), and every family from 5 on.
	budgetRefused = since{"opus": {"opus", 4, 7}, "*": {"", 5, 0}}
	// disabledRefused: thinking {"type":"disabled"} is a 400. Opus 5.5
	// ("\"thinking.type.disabled\" is not supported for this model. Use
	// \"thinking.type.adaptive\" and \"output_config.effort\" …";
	// platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5, which
	// says the same holds on Claude Fable 5.1), Sonnet 5.5 ("a 400
	// invalid_request_error whose message points to between_tools",
	// .../sonnet-5-5/whats-new-sonnet-5-5), and Fable from its first model
	// ("Adaptive (always on)" in the models overview). Opus 5 and Sonnet 5
	// take it; Haiku's rows are not documented, so none is written.
	disabledRefused = since{"opus": {"opus", 5, 1}, "sonnet": {"sonnet", 5, 1}, "fable": {}, "mythos": {}}
	// betweenTools: thinking {"type":"between_tools"} (no thinking up
	// front, progress notes between tool calls) is taken: Sonnet 5.5, where
	// it replaces "disabled" (.../sonnet-5-5/whats-new-sonnet-5-5). A model
	// that does not know the type refuses it.
	betweenTools = since{"sonnet": {"sonnet", 5, 5}}
	// forcedToolRefused: tool_choice {"type":"any"} or {"type":"tool"} is
	// a 400. Sonnet 5.5 ("Forced tool use returns an error", its what's-new
	// page), Opus 5.5 and Fable 5.1 (.../opus-5-5/whats-new-opus-5-5;
	// .../fable-5-1/migration-guide: "{type: \"auto\"} (the default) and
	// {type: \"none\"} are supported. Forcing a tool call … returns a 400
	// error"). Sonnet 5, Opus 5 and Fable 5 take it, so the rule starts at
	// 5.1 in every family.
	forcedToolRefused = since{"*": {"", 5, 1}}
	// prefillRefused: a conversation ending with an assistant turn is a
	// 400 ("This model does not support assistant message prefill. The
	// conversation must end with a user message."): the 4.6 generation on
	// (splice.PrefillRefused), Sonnet 5.5 (its migration guide: "assistant
	// prefill" returns a 400).
	prefillRefused = since{"*": {"", 4, 6}}
	// output128k: the output maximum is 128,000 tokens, as the models
	// overview and each model's page state for Opus 4.8, Sonnet 5, Sonnet
	// 5.5, Opus 5, Opus 5.5 and Fable 5.1 ("Max output 128K tokens"). A
	// max_tokens above it is a 400.
	output128k = since{"*": {"", 5, 0}, "opus": {"opus", 4, 8}}
)

// TakesPrefill reports whether the Claude model named model may be sent a
// conversation that ends with an assistant turn (a cut stream continued by
// prefill): not from the 4.6 generation on, which refuse it with a 400
// (prefillRefused). A name whose family is not read may.
func TakesPrefill(model string) bool { return !prefillRefused.holds(model) }
