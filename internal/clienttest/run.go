package clienttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Versions pinned for the recordings in e2e/testdata/clients and for the
// install step (npm install --prefix $DETOUR_CLIENTS_DIR …).
const (
	ClaudeCodeVersion = "2.1.337"
	CodexVersion      = "0.171.0"
	GeminiCLIVersion  = "0.61.0"
)

// Result is one CLI run.
type Result struct {
	Stdout, Stderr string
	// Err is the exit error (nil for exit status 0), or a timeout.
	Err error
	// Home is the throwaway HOME the CLI ran with (gone after the test).
	Home string
}

// Find returns the path of a CLI ("claude", "codex" or "gemini"): first
// $DETOUR_CLIENTS_DIR/node_modules/.bin/<name>, then PATH. It returns ""
// when neither has it.
func Find(name string) string {
	if dir := os.Getenv("DETOUR_CLIENTS_DIR"); dir != "" {
		p := filepath.Join(dir, "node_modules", ".bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return ""
}

// need returns the CLI's path, or skips t when it is missing or is not the
// pinned version (the tests assert what that version sends). Under
// DETOUR_CLIENTS_REQUIRED=1 (CI, once it installs them) it fails instead.
func need(t testing.TB, name, pkg string) string {
	t.Helper()
	stop := t.Skipf
	if os.Getenv("DETOUR_CLIENTS_REQUIRED") == "1" {
		stop = t.Fatalf
	}
	p := Find(name)
	if p == "" {
		stop("%s (npm %s) is not installed: set DETOUR_CLIENTS_DIR to an npm prefix holding it "+
			"(npm install --prefix \"$DETOUR_CLIENTS_DIR\" %s@%s)", name, pkg, pkg, pinned(pkg))
		return ""
	}
	r := run(p, []string{"--version"}, baseEnv(t.TempDir()), "", 30*time.Second)
	if r.Err != nil || !strings.Contains(r.Stdout, pinned(pkg)) {
		stop("%s at %s is %q (%v), not the pinned %s@%s: install that into $DETOUR_CLIENTS_DIR",
			name, p, strings.TrimSpace(r.Stdout), r.Err, pkg, pinned(pkg))
	}
	return p
}

func pinned(pkg string) string {
	switch pkg {
	case "@openai/codex":
		return CodexVersion
	case "@google/gemini-cli":
		return GeminiCLIVersion
	}
	return ClaudeCodeVersion
}

// baseEnv is the whole environment a CLI gets: nothing of the machine's
// but PATH, a throwaway HOME, and no proxy.
func baseEnv(home string) []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"TMPDIR=" + filepath.Join(home, "tmp"),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"NO_PROXY=127.0.0.1,localhost",
	}
}

// run runs bin with args and env in dir, for at most timeout.
func run(bin string, args, env []string, dir string, timeout time.Duration) Result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("%s did not finish within %s: %w", filepath.Base(bin), timeout, ctx.Err())
	}
	return Result{Stdout: out.String(), Stderr: errb.String(), Err: err}
}

// tempHome makes a throwaway HOME with a workspace directory in it.
func tempHome(t testing.TB) (home, work string) {
	t.Helper()
	home = t.TempDir()
	work = filepath.Join(home, "work")
	for _, d := range []string{work, filepath.Join(home, "tmp"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return home, work
}

// Options adds to a CLI run.
type Options struct {
	// Args go after the run's own flags (before the prompt for Codex).
	Args []string
	// Env adds NAME=value entries to the CLI's environment.
	Env []string
	// Files are written into the workspace (the CLI's working directory)
	// before the run: name (relative, may hold directories) to content.
	Files map[string]string
}

// writeFiles writes o.Files into work.
func writeFiles(t testing.TB, work string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// RunClaude runs `claude -p prompt --output-format json` once against
// baseURL (http://127.0.0.1:PORT, no /v1: Claude Code adds /v1/messages)
// with the key "test" in x-api-key. It skips t when Claude Code is not
// installed.
func RunClaude(t testing.TB, baseURL, prompt string, o Options) Result {
	t.Helper()
	bin := need(t, "claude", "@anthropic-ai/claude-code")
	home, work := tempHome(t)
	writeFiles(t, work, o.Files)
	env := append(baseEnv(home),
		"ANTHROPIC_BASE_URL="+baseURL,
		"ANTHROPIC_API_KEY=test",
		// Everything that is not the model call: telemetry, error
		// reports, auto-update, release notes, model capabilities.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_SKIP_PROMPT_HISTORY=1",
	)
	env = append(env, o.Env...)
	args := append([]string{"-p", prompt, "--output-format", "json"}, o.Args...)
	r := run(bin, args, env, work, 3*time.Minute)
	r.Home = home
	return r
}

// RunCodex runs `codex exec prompt` once against baseURL (http://127.0.0.1:PORT,
// no /v1) through a custom provider with wire_api "responses" and the key
// "test" in DETOUR_API_KEY (sent as Authorization: Bearer). It skips t when
// Codex CLI is not installed.
func RunCodex(t testing.TB, baseURL, prompt string, o Options) Result {
	t.Helper()
	bin := need(t, "codex", "@openai/codex")
	home, work := tempHome(t)
	writeFiles(t, work, o.Files)
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	config := CodexConfig(baseURL)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(baseEnv(home), "CODEX_HOME="+codexHome, "DETOUR_API_KEY=test")
	env = append(env, o.Env...)
	args := append([]string{"exec", "--skip-git-repo-check", "--ephemeral",
		"--sandbox", "read-only", "--color", "never"}, o.Args...)
	args = append(args, prompt)
	r := run(bin, args, env, work, 3*time.Minute)
	r.Home = home
	return r
}

// CodexConfig is the config.toml RunCodex writes: a custom provider
// "detour" at baseURL/v1 speaking the Responses API, and nothing that
// reaches the network besides it.
func CodexConfig(baseURL string) string {
	return `model_provider = "detour"
check_for_update_on_startup = false

[model_providers.detour]
name = "Detour"
base_url = "` + baseURL + `/v1"
env_key = "DETOUR_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

# Plugins sync from api.github.com and chatgpt.com at startup.
[features]
plugins = false
`
}

// RunGemini runs `gemini -p prompt --output-format json` (Gemini CLI's
// headless mode) once against baseURL (http://127.0.0.1:PORT, no
// /v1beta: the CLI's @google/genai client adds /v1beta/models/…) with the
// key "test" in GEMINI_API_KEY (sent as x-goog-api-key). It skips t when
// Gemini CLI is not installed. The workspace is trusted for the session
// (GEMINI_CLI_TRUST_WORKSPACE), so the CLI's own tools are offered; a
// tool that needs approval runs only with o.Args like
// "--approval-mode", "yolo".
func RunGemini(t testing.TB, baseURL, prompt string, o Options) Result {
	t.Helper()
	bin := need(t, "gemini", "@google/gemini-cli")
	home, work := tempHome(t)
	writeFiles(t, work, o.Files)
	dir := filepath.Join(home, ".gemini")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(GeminiSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(baseEnv(home),
		"GOOGLE_GEMINI_BASE_URL="+baseURL,
		"GEMINI_API_KEY=test",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		// Telemetry is off by default; say so over any settings.
		"GEMINI_TELEMETRY_ENABLED=false",
		// One process: without it the CLI relaunches itself as a child
		// node with a larger heap, which a timeout would not stop.
		"GEMINI_CLI_NO_RELAUNCH=true",
	)
	env = append(env, o.Env...)
	args := append([]string{"-p", prompt, "--output-format", "json"}, o.Args...)
	r := run(bin, args, env, work, 3*time.Minute)
	r.Home = home
	return r
}

// GeminiSettings is the $HOME/.gemini/settings.json RunGemini writes:
// nothing that reaches the network besides the model calls — no usage
// statistics (Clearcut, play.googleapis.com, on by default), no update
// check or auto-update (registry.npmjs.org), no IDE companion, no
// extension registry, no MCP server, no checkpointing (a shadow git
// repository).
const GeminiSettings = `{
  "general": {
    "enableAutoUpdate": false,
    "enableAutoUpdateNotification": false,
    "checkpointing": {"enabled": false}
  },
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "ide": {"enabled": false},
  "admin": {"mcp": {"enabled": false}, "extensions": {"enabled": false}},
  "experimental": {"extensionRegistry": false}
}
`
