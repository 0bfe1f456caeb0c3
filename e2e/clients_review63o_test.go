package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Review 63o: Claude Code and Codex through Detour to Gemini,
// OpenAI-compatible and Anthropic fakes.

type p63oClaudeOut struct {
	Type, Subtype string
	IsError       bool   `json:"is_error"`
	Result        string `json:"result"`
	SessionID     string `json:"session_id"`
	NumTurns      int    `json:"num_turns"`
	Usage         struct {
		Input      int `json:"input_tokens"`
		CacheRead  int `json:"cache_read_input_tokens"`
		CacheWrite int `json:"cache_creation_input_tokens"`
		Output     int `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

func p63oClaude(t *testing.T, home, work, url, route, prompt string, interrupt <-chan struct{}, extra ...string) (p63oRun, p63oClaudeOut) {
	t.Helper()
	bin := p63oBin(t, "claude")
	env := append(p63oEnv(home), "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_BUG_COMMAND=1",
		"ANTHROPIC_SMALL_FAST_MODEL="+route, "ANTHROPIC_DEFAULT_HAIKU_MODEL="+route)
	args := append([]string{"-p", prompt, "--output-format", "json", "--model", route, "--allowedTools", "Read", "Bash"}, extra...)
	r := p63oExec(t, bin, args, env, work, interrupt)
	var out p63oClaudeOut
	_ = json.Unmarshal([]byte(r.Stdout), &out)
	return r, out
}

// p63oToolPlan: Read the file, then Bash, then the answer; side calls
// (no tools) get a short text.
func p63oToolPlan(t *testing.T, work string, sawFile, sawBash *bool) func(r p63oReq) p63oTurn {
	return func(r p63oReq) p63oTurn {
		if !r.Tools {
			return p63oTurn{Text: []string{"p63o side answer"}, In: 10, Out: 2}
		}
		base := p63oTurn{In: 1500 + 100*r.Steps, Cached: 1000, Out: 40, Thoughts: 25,
			Thinking: []string{"Step " + fmt.Sprint(r.Steps) + ": ", "I should look first."},
			Sig:      fmt.Sprintf("p63o-sig-step-%d", r.Steps)}
		switch r.Steps {
		case 0:
			base.Text = []string{"Let me read ", "the notes."}
			base.Calls = []p63oCall{{ID: "call_read_1", Name: "Read", Args: p63oJS(map[string]any{"file_path": filepath.Join(work, "notes.txt")})}}
		case 1:
			*sawFile = *sawFile || strings.Contains(string(r.Body), "p63o-file-content-7781")
			base.Text = []string{"Now a command."}
			base.Calls = []p63oCall{{ID: "call_bash_2", Name: "Bash", Args: `{"command":"echo p63o-bash-$((6*7))","description":"Print the marker"}`}}
		default:
			*sawBash = *sawBash || strings.Contains(string(r.Body), "p63o-bash-42")
			base.Text = []string{"All done: the file says ", "p63o-file-content-7781", " and bash printed ", "p63o-bash-42."}
		}
		return base
	}
}

func TestReview63oClaudeCodeToolLoop(t *testing.T) {
	for _, dialect := range []string{"gemini", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			os.WriteFile(filepath.Join(work, "notes.txt"), []byte("p63o-file-content-7781\n"), 0o644)
			var sawFile, sawBash bool
			plan := p63oToolPlan(t, work, &sawFile, &sawBash)
			g, gem, oai, _ := startP63oWith(t, plan)
			route, f := "r-gem", gem
			if dialect == "openai" {
				route, f = "r-oai", oai
			}
			r, out := p63oClaude(t, home, work, g.URL, route, "Read notes.txt, then run the marker command, then tell me both.", nil)
			t.Logf("took %v err %v\nstdout: %.3000s\nstderr: %.2000s", r.Took, r.Err, r.Stdout, r.Stderr)
			var tooled int
			var wantIn, wantCache, wantOut int
			for _, q := range f.requests() {
				t.Logf("upstream %d %s tools=%v steps=%d stream=%v len=%d", q.N, q.Path, q.Tools, q.Steps, q.Stream, len(q.Body))
				if q.Tools {
					tooled++
					wantIn += 1500 + 100*q.Steps - 1000
					wantCache += 1000
					wantOut += 65
				}
			}
			if r.Err != nil || out.IsError || !strings.Contains(out.Result, "p63o-file-content-7781") || !strings.Contains(out.Result, "p63o-bash-42") {
				t.Errorf("turn did not finish: err %v is_error %v result %q", r.Err, out.IsError, out.Result)
			}
			if !sawFile || !sawBash {
				t.Errorf("tool results did not reach the upstream: file %v bash %v", sawFile, sawBash)
			}
			t.Logf("Claude Code usage: %+v; modelUsage %s", out.Usage, out.ModelUsage)
			t.Logf("want (sum over %d tooled calls): input %d cache_read %d output %d", tooled, wantIn, wantCache, wantOut)
			if out.Usage.Input != wantIn || out.Usage.CacheRead != wantCache || out.Usage.Output != wantOut {
				t.Errorf("usage shown %+v, want input %d cache_read %d output %d", out.Usage, wantIn, wantCache, wantOut)
			}
		})
	}
}

// TestReview63oClaudeCodeCancelAndResume: the CLI is interrupted while the
// upstream is mid-stream; Detour must let go of the upstream; then
// `claude -p --resume` carries on the session.
func TestReview63oClaudeCodeCancelAndResume(t *testing.T) {
	for _, dialect := range []string{"gemini", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			plan := func(r p63oReq) p63oTurn {
				if !r.Tools {
					return p63oTurn{Text: []string{"side"}, In: 10, Out: 2}
				}
				if strings.Contains(string(r.Body), "p63o-resume-now") {
					return p63oTurn{Text: []string{"Resumed; ", "earlier prompt seen: ", fmt.Sprint(strings.Contains(string(r.Body), "p63o-cancel-first"))}, In: 300, Out: 9}
				}
				return p63oTurn{Text: []string{"Working on it, ", "slowly, ", "step by step"}, Stall: true, In: 200, Out: 5}
			}
			g, gem, oai, _ := startP63oWith(t, plan)
			route, f := "r-gem", gem
			if dialect == "openai" {
				route, f = "r-oai", oai
			}
			sid := "6c0a3f1e-63a0-4c3b-9d1e-0000000063" + map[string]string{"gemini": "0a", "openai": "0b"}[dialect]
			interrupt := make(chan struct{})
			go func() {
				select {
				case <-f.stalled:
					time.Sleep(500 * time.Millisecond)
					close(interrupt)
				case <-time.After(90 * time.Second):
				}
			}()
			r, out := p63oClaude(t, home, work, g.URL, route, "p63o-cancel-first: write a long essay", interrupt, "--session-id", sid)
			t.Logf("interrupted run: took %v err %v out %+v\nstdout %.800s\nstderr %.800s", r.Took, r.Err, out, r.Stdout, r.Stderr)
			deadline := time.Now().Add(10 * time.Second)
			for f.left.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if f.left.Load() == 0 {
				t.Errorf("the upstream's stalled stream was not let go within 10 s of the client leaving")
			}
			d := g.recs.wait(t, 1)
			t.Logf("decision 1: outcome %q steps %v", d.Outcome, steps(d))
			r2, out2 := p63oClaude(t, home, work, g.URL, route, "p63o-resume-now: continue", nil, "--resume", sid)
			t.Logf("resumed run: took %v err %v result %q is_error %v\nstderr %.800s", r2.Took, r2.Err, out2.Result, out2.IsError, r2.Stderr)
			if r2.Err != nil || out2.IsError || !strings.Contains(out2.Result, "Resumed") {
				t.Errorf("resume failed: %v %q", r2.Err, out2.Result)
			}
			if !strings.Contains(out2.Result, "earlier prompt seen: true") {
				t.Logf("note: the resumed request did not carry the interrupted prompt: %q", out2.Result)
			}
		})
	}
}

// TestReview63oClaudeCodeLongStream: 2,000 text events.
func TestReview63oClaudeCodeLongStream(t *testing.T) {
	parts, want := p63oLongText()
	for _, dialect := range []string{"gemini", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			plan := func(r p63oReq) p63oTurn {
				if !r.Tools {
					return p63oTurn{Text: []string{"side"}, In: 10, Out: 2}
				}
				return p63oTurn{Text: parts, In: 900, Cached: 0, Out: 2000, Thoughts: 0}
			}
			g, _, _, _ := startP63oWith(t, plan)
			route := "r-gem"
			if dialect == "openai" {
				route = "r-oai"
			}
			r, out := p63oClaude(t, home, work, g.URL, route, "Count to two thousand.", nil)
			t.Logf("took %v err %v is_error %v usage %+v len(result) %d", r.Took, r.Err, out.IsError, out.Usage, len(out.Result))
			if strings.TrimSpace(out.Result) != strings.TrimSpace(want) {
				t.Errorf("result differs from the 2,000 events: got %d bytes, want %d; head %.100q tail %.100q\nstderr %.500s",
					len(out.Result), len(want), out.Result, out.Result[max(0, len(out.Result)-100):], r.Stderr)
			}
			if out.Usage.Output != 2000 || out.Usage.Input != 900 {
				t.Errorf("usage %+v, want input 900 output 2000", out.Usage)
			}
		})
	}
}

// p63oCodex runs codex exec with a config allowing streamRetries, writes
// allowed (no sandbox), in its own HOME.
func p63oCodex(t *testing.T, home, work, url, route, prompt string, streamRetries int) p63oRun {
	t.Helper()
	bin := p63oBin(t, "codex")
	codexHome := filepath.Join(home, ".codex")
	os.MkdirAll(codexHome, 0o755)
	cfg := `model_provider = "detour"
check_for_update_on_startup = false

[model_providers.detour]
name = "Detour"
base_url = "` + url + `/v1"
env_key = "DETOUR_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = ` + fmt.Sprint(streamRetries) + `

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
`
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644)
	env := append(p63oEnv(home), "CODEX_HOME="+codexHome, "DETOUR_API_KEY=test")
	args := []string{"exec", "--skip-git-repo-check", "--ephemeral", "--dangerously-bypass-approvals-and-sandbox", "--color", "never", "-m", route, prompt}
	return p63oExec(t, bin, args, env, work, nil)
}

const p63oPatch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello63o.txt\n+p63o patched line\n*** End Patch\nEOF\n"

func TestReview63oCodexToolLoop(t *testing.T) {
	for _, dialect := range []string{"anthropic", "gemini"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			var sawShell, sawPatch bool
			var sigsBack []string
			plan := func(r p63oReq) p63oTurn {
				if !r.Tools {
					return p63oTurn{Text: []string{"side"}, In: 10, Out: 2}
				}
				for s := range 3 {
					if strings.Contains(string(r.Body), fmt.Sprintf("p63o-codex-sig-%d", s)) {
						sigsBack = append(sigsBack, fmt.Sprintf("req%d:sig%d", r.N, s))
					}
				}
				base := p63oTurn{In: 5000, Cached: 4000, Out: 60, Thoughts: 30, Sig: fmt.Sprintf("p63o-codex-sig-%d", r.Steps),
					Thinking: []string{"Thinking about step ", fmt.Sprint(r.Steps), "."}}
				switch r.Steps {
				case 0:
					base.Text = []string{"Running a command."}
					base.Calls = []p63oCall{{ID: "toolu_p63o_1", Name: "exec_command", Args: `{"cmd":"echo p63o-codex-$((6*7))"}`}}
				case 1:
					sawShell = sawShell || strings.Contains(string(r.Body), "p63o-codex-42")
					base.Text = []string{"Now the patch."}
					base.Calls = []p63oCall{{ID: "toolu_p63o_2", Name: "exec_command", Args: p63oJS(map[string]any{"cmd": p63oPatch})}}
				default:
					sawPatch = sawPatch || strings.Contains(string(r.Body), "hello63o.txt")
					base.Text = []string{"Finished: ", "p63o-codex-final"}
				}
				return base
			}
			g, gem, _, ant := startP63oWith(t, plan)
			route, f := "r-ant", ant
			if dialect == "gemini" {
				route, f = "r-gem", gem
			}
			r := p63oCodex(t, home, work, g.URL, route, "Run the marker command, then add hello63o.txt with apply_patch.", 0)
			t.Logf("took %v err %v\nstdout %.1500s\nstderr %.3000s", r.Took, r.Err, r.Stdout, r.Stderr)
			for _, q := range f.requests() {
				var b struct {
					Thinking json.RawMessage `json:"thinking"`
				}
				json.Unmarshal(q.Body, &b)
				t.Logf("upstream %d %s tools=%v steps=%d stream=%v len=%d thinking=%s", q.N, q.Path, q.Tools, q.Steps, q.Stream, len(q.Body), b.Thinking)
			}
			t.Logf("signatures handed back: %v", sigsBack)
			if r.Err != nil || !strings.Contains(r.Stdout, "p63o-codex-final") {
				t.Errorf("codex did not finish the loop: %v", r.Err)
			}
			if !sawShell || !sawPatch {
				t.Errorf("tool outputs upstream: shell %v patch %v", sawShell, sawPatch)
			}
			if b, err := os.ReadFile(filepath.Join(work, "hello63o.txt")); err != nil || !strings.Contains(string(b), "p63o patched line") {
				t.Errorf("apply_patch did not write the file: %v %q", err, b)
			}
			if dialect == "gemini" && len(sigsBack) < 2 {
				t.Errorf("the upstream's signatures did not come back in the loop: %v", sigsBack)
			}
		})
	}
}

// TestReview63oCodexMidStreamError: the first answer fails mid-stream with
// the dialect's error event after some text; Codex (stream_max_retries 2)
// should get a response.failed it reads and retry once.
func TestReview63oCodexMidStreamError(t *testing.T) {
	for _, dialect := range []string{"anthropic", "gemini"} {
		for _, retries := range []int{2, 0} {
			t.Run(fmt.Sprintf("%s/retries%d", dialect, retries), func(t *testing.T) {
				home, work := p63oHome(t)
				plan := func(r p63oReq) p63oTurn {
					if !r.Tools {
						return p63oTurn{Text: []string{"side"}, In: 10, Out: 2}
					}
					if r.N == 1 {
						return p63oTurn{Text: []string{"Partial answer that ", "will break"}, ErrAfter: true, In: 100, Out: 3}
					}
					return p63oTurn{Text: []string{"Recovered: ", "p63o-after-retry"}, In: 100, Out: 4}
				}
				g, gem, _, ant := startP63oWith(t, plan)
				route, f := "r-ant", ant
				if dialect == "gemini" {
					route, f = "r-gem", gem
				}
				began := time.Now()
				r := p63oCodex(t, home, work, g.URL, route, "say something", retries)
				t.Logf("took %v err %v upstream requests %d\nstdout %.800s\nstderr %.3000s", time.Since(began), r.Err, len(f.requests()), r.Stdout, r.Stderr)
				d := g.recs.wait(t, 1)
				t.Logf("decision 1: outcome %q steps %v", d.Outcome, steps(d))
				if retries > 0 {
					if r.Err != nil || !strings.Contains(r.Stdout, "p63o-after-retry") || len(f.requests()) != 2 {
						t.Errorf("codex did not retry to the answer: %v, %d requests", r.Err, len(f.requests()))
					}
				} else if r.Err == nil || strings.Contains(r.Stdout, "will break") {
					t.Errorf("codex took the broken stream as an answer: %q", r.Stdout)
				}
			})
		}
	}
}

// TestReview63oClaudeCodeMidStreamError: the first answer breaks after
// some text with the upstream's error event; does Claude Code retry it?
func TestReview63oClaudeCodeMidStreamError(t *testing.T) {
	for _, dialect := range []string{"gemini", "openai"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			var tooled int
			var mu = make(chan struct{}, 1)
			plan := func(r p63oReq) p63oTurn {
				if !r.Tools {
					return p63oTurn{Text: []string{"side"}, In: 10, Out: 2}
				}
				mu <- struct{}{}
				tooled++
				first := tooled == 1
				<-mu
				if first {
					return p63oTurn{Text: []string{"Partial answer that ", "will break"}, ErrAfter: true, In: 100, Out: 3}
				}
				return p63oTurn{Text: []string{"Recovered: ", "p63o-cc-after-retry"}, In: 100, Out: 4}
			}
			g, gem, oai, _ := startP63oWith(t, plan)
			route, f := "r-gem", gem
			if dialect == "openai" {
				route, f = "r-oai", oai
			}
			r, out := p63oClaude(t, home, work, g.URL, route, "say something", nil)
			t.Logf("took %v err %v upstream %d; result %q is_error %v subtype %q\nstdout %.600s\nstderr %.1500s", r.Took, r.Err, len(f.requests()), out.Result, out.IsError, out.Subtype, r.Stdout, r.Stderr)
			for i := 1; i <= len(f.requests()); i++ {
				d := g.recs.wait(t, i)
				t.Logf("decision %d: outcome %q steps %v", i, d.Outcome, steps(d))
			}
			if out.IsError || !strings.Contains(out.Result, "p63o-cc-after-retry") {
				t.Errorf("Claude Code did not retry the broken stream to the answer: %q", out.Result)
			}
			if strings.Contains(out.Result, "will break") {
				t.Errorf("Claude Code shows the broken stream's text: %q", out.Result)
			}
		})
	}
}

// TestReview63oCodexLongStream: 2,000 text events through the Responses door.
func TestReview63oCodexLongStream(t *testing.T) {
	parts, want := p63oLongText()
	for _, dialect := range []string{"anthropic", "gemini"} {
		t.Run(dialect, func(t *testing.T) {
			home, work := p63oHome(t)
			plan := func(r p63oReq) p63oTurn {
				return p63oTurn{Text: parts, In: 900, Out: 2000}
			}
			g, _, _, _ := startP63oWith(t, plan)
			route := "r-ant"
			if dialect == "gemini" {
				route = "r-gem"
			}
			r := p63oCodex(t, home, work, g.URL, route, "count", 0)
			t.Logf("took %v err %v stdout %d bytes; stderr tail %q", r.Took, r.Err, len(r.Stdout), r.Stderr[max(0, len(r.Stderr)-200):])
			if strings.TrimSpace(r.Stdout) != strings.TrimSpace(want) {
				t.Errorf("codex printed %d bytes, want %d", len(strings.TrimSpace(r.Stdout)), len(strings.TrimSpace(want)))
			}
			if !strings.Contains(r.Stderr, "2,900") {
				t.Errorf("tokens used not 2,900 (900 in + 2000 out)")
			}
		})
	}
}

// p63oLongText is a text of 2,000 events, and the whole it makes.
func p63oLongText() (parts []string, whole string) {
	var b strings.Builder
	for i := range 2000 {
		p := fmt.Sprintf("w%04d ", i)
		parts = append(parts, p)
		b.WriteString(p)
	}
	return parts, b.String()
}
