package archtest

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/detour-llm/detour/"

// allowed lists, for each of our packages, the packages of ours it may
// import (non-test files), with the reason.
var allowed = map[string][]string{
	// The classifier is public and reusable alone: nothing of ours.
	"classify": {},
	// Pure tables and orderings: only the class set.
	"internal/policy": {"classify", "internal/route"},
	"internal/route":  {},
	// Leaf utilities.
	"internal/sse":          {},
	"internal/rawjson":      {}, // reading and splicing JSON members, and strings, without reflection
	"internal/signkey":      {}, // the keys what the gateway hands clients is sealed with
	"internal/offstack":     {}, // deep work off a handler's stack
	"internal/decision":     {"internal/rawjson"},
	"internal/upstreamtest": {},
	"internal/metrics":      {"classify"},
	"internal/alert":        {},
	// The requests being served now, for the console: nothing of ours.
	"internal/inprogress": {},
	// Scrubs secrets from text leaving the process; knows nothing of config.
	"internal/redact": {},
	// Health does not know what classes mean: the caller tells it.
	"internal/health": {"internal/redisfail"},
	// Tells an unreachable Redis from an error reply: nothing of ours.
	"internal/redisfail": {},
	// Config decodes into plain data; it knows classes and dialects, and
	// resolves each route's policy.Table once at load.
	"internal/config": {"classify", "internal/policy", "internal/route"},
	// Adapters know the adapter interface, the SSE reader and the shared
	// OpenAI wire structs; never routing, health or policy.
	"internal/provider":           {"internal/rawjson", "internal/signkey", "internal/sse"},
	"internal/provider/chat":      {"internal/provider", "internal/rawjson"},
	"internal/provider/openai":    {"internal/provider", "internal/rawjson", "internal/sse"},
	"internal/provider/anthropic": {"internal/offstack", "internal/provider", "internal/provider/chat", "internal/rawjson", "internal/sse"},
	"internal/provider/gemini":    {"internal/offstack", "internal/provider", "internal/provider/chat", "internal/rawjson", "internal/sse"},
	// Client doors: pure translation between a client API and the canonical
	// chat shapes, plus the door's error envelope (the class names it).
	"internal/door/messages":  {"classify", "internal/provider/chat", "internal/rawjson"},
	"internal/door/responses": {"internal/provider/chat", "internal/rawjson"},
	"internal/door/gemini":    {"classify", "internal/provider/chat", "internal/rawjson"},
	// Mid-stream continuation blocks: canonical chunk JSON, the usage type
	// and dialect names; no HTTP, no dispatch.
	"internal/splice": {"classify", "internal/provider", "internal/rawjson"},
	// Test helper for the adapter packages' tests: the adapter interface only.
	"internal/provider/adaptertest": {"internal/provider"},
	// Dispatch is the one place routing, health, policy and adapters meet;
	// it continues cut streams with splice's building blocks.
	"internal/dispatch": {"classify", "internal/config", "internal/decision", "internal/health", "internal/metrics",
		"internal/policy", "internal/provider", "internal/provider/anthropic", "internal/provider/gemini",
		"internal/provider/chat", "internal/provider/openai", "internal/offstack", "internal/rawjson", "internal/route", "internal/signkey", "internal/splice", "internal/sse"},
	// Client limits count in memory or Redis; they read client keys only.
	"internal/limit": {"internal/config", "internal/redisfail"},
	// The HTTP front talks to dispatch, never to adapters or policy directly,
	// and not to provider either (docs/design.md, "Who owns the client"): it
	// sees canonical JSON and dispatch's facts, and writes them for its
	// client (the class for the envelope's type, sse for the framing).
	"internal/server": {"classify", "internal/config", "internal/decision", "internal/dispatch", "internal/door/gemini", "internal/door/messages", "internal/door/responses", "internal/health",
		"internal/inprogress", "internal/limit", "internal/metrics", "internal/offstack", "internal/rawjson", "internal/sse"},
	// Wiring knows the parts it wires.
	"internal/app": {"classify", "internal/alert", "internal/config", "internal/decision", "internal/dispatch",
		"internal/health", "internal/inprogress", "internal/limit", "internal/metrics", "internal/rawjson", "internal/redact", "internal/server", "internal/signkey", "internal/console", "internal/tracing"},
	// The console reads records, health, the client limits' counters and
	// the configuration; it never serves requests (no server, no dispatch).
	"internal/console": {"classify", "internal/config", "internal/decision", "internal/health", "internal/inprogress", "internal/limit", "internal/policy", "internal/query", "internal/suggest"},
	// A rule suggested for unknown answers, the console's and the CLI's
	// alike: read from recorded messages (scrubbed by redact).
	"internal/suggest": {"classify", "internal/decision", "internal/redact"},
	// Traces are built from finished records.
	"internal/tracing":   {"internal/decision"},
	"internal/demo":      {"internal/upstreamtest"},
	"internal/redistest": {},
	// Test doubles (a settable clock, a goroutine-safe buffer): nothing of ours.
	"internal/testutil": {},
	// Test helper that runs a whole gateway in-process: wiring, config, records.
	"internal/gatewaytest": {"internal/app", "internal/config", "internal/decision"},
	// Test helper that runs real client CLIs against a loopback recorder:
	// nothing of ours (its tests read the doors).
	"internal/clienttest": {},
	// This test itself.
	"internal/archtest": {},
	// The CLI; `classify --suggest` reads decision records.
	"cmd/detour": {"classify", "internal/app", "internal/config", "internal/decision", "internal/demo", "internal/policy", "internal/query", "internal/rawjson", "internal/sse", "internal/suggest"},
	// The overhead benchmark drives a built `detour serve` over HTTP; it
	// borrows only the fake provider's canned answers, and reads /proc as
	// the in-process benchmarks do.
	"bench/cmd/overhead":    {"bench/internal/procfs", "internal/upstreamtest"},
	"bench/internal/procfs": {},
	// A module of its own that reads runtime traces (golang.org/x/exp):
	// nothing of the gateway's.
	"bench/tracecrit": {},
	// Reading, filtering and summarising decision records: the class names
	// and the record, nothing that serves requests.
	"internal/query": {"classify", "internal/decision", "internal/rawjson"},
}

// forbidden lists imports a package must never gain, whatever its rule above
// says later, with the reason: a rule edited to allow one fails here.
var forbidden = map[string][]string{
	// The server owns the client and dispatch owns the upstreams: the front
	// never sees a provider type (docs/design.md, "Who owns the client").
	"internal/server": {"internal/provider"},
}

func TestForbiddenImports(t *testing.T) {
	for pkg, bad := range forbidden {
		for _, b := range bad {
			for _, rule := range allowed[pkg] {
				if rule == b || strings.HasPrefix(rule, b+"/") {
					t.Errorf("the rule for %s allows %s, which it must never import", pkg, rule)
				}
			}
		}
	}
}

func TestImportRules(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rules, known := allowed[rel]
		if !known {
			if f.Name.Name == "main" || !strings.HasPrefix(rel, "e2e") && !strings.HasPrefix(rel, "bench") {
				if !seen[rel] {
					t.Errorf("package %s has no import rule: add it to allowed, with the reason", rel)
				}
			}
			seen[rel] = true
			return nil
		}
		seen[rel] = true
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			ours, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			if !slices.Contains(rules, ours) {
				t.Errorf("%s imports %s, which its rule does not allow", path, ours)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range allowed {
		if !seen[pkg] {
			t.Errorf("rule for %s names no package on disk", pkg)
		}
	}
}
