package clienttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// NodeDir is the directory of the Node.js client scripts and of the
// package.json pinning the npm packages they import (e2e/testdata/node).
func NodeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "e2e", "testdata", "node")
}

// NodePackages returns the npm packages e2e/testdata/node/package.json
// pins, name to exact version.
func NodePackages() (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(NodeDir(), "package.json"))
	if err != nil {
		return nil, err
	}
	var pj struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		return nil, fmt.Errorf("%s/package.json: %w", NodeDir(), err)
	}
	return pj.Dependencies, nil
}

// nodeModules returns $DETOUR_CLIENTS_DIR/node_modules when it holds every
// pinned package at its pinned version, and node's path; otherwise it
// skips t (fails it under DETOUR_CLIENTS_REQUIRED=1).
func nodeModules(t testing.TB) (modules, node string) {
	t.Helper()
	stop := t.Skipf
	if os.Getenv("DETOUR_CLIENTS_REQUIRED") == "1" {
		stop = t.Fatalf
	}
	pkgs, err := NodePackages()
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		stop("node is not installed: the JavaScript client tests need Node.js")
		return "", ""
	}
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	install := "npm install --prefix \"$DETOUR_CLIENTS_DIR\""
	for name, version := range pkgs {
		install += " " + name + "@" + version
	}
	if dir == "" {
		stop("the JavaScript clients are not installed: set DETOUR_CLIENTS_DIR to an npm prefix holding them (%s)", install)
		return "", ""
	}
	modules = filepath.Join(dir, "node_modules")
	for name, version := range pkgs {
		b, err := os.ReadFile(filepath.Join(modules, name, "package.json"))
		var pj struct{ Version string }
		if err == nil {
			err = json.Unmarshal(b, &pj)
		}
		if err != nil || pj.Version != version {
			stop("npm %s@%s is not in %s (found %q, %v): %s", name, version, modules, pj.Version, err, install)
			return "", ""
		}
	}
	return modules, node
}

// NodeResult is one run of a client script: each case's JSON line by
// case name, and the process's output.
type NodeResult struct {
	Result
	Cases map[string]json.RawMessage
}

// Case decodes the line of case name into v and reports true; it marks t
// failed and reports false when the script printed no such case or the
// case reported an error.
func (r NodeResult) Case(t testing.TB, name string, v any) bool {
	t.Helper()
	line, ok := r.Cases[name]
	if !ok {
		t.Errorf("case %s printed nothing\nstdout: %s\nstderr: %s", name, r.Stdout, r.Stderr)
		return false
	}
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &e) == nil && len(e.Error) > 0 {
		t.Errorf("case %s: the client reported %s", name, e.Error)
		return false
	}
	if err := json.Unmarshal(line, v); err != nil {
		t.Errorf("case %s: %v: %s", name, err, line)
		return false
	}
	return true
}

// NodeError is what a client script reports for a case that threw.
type NodeError struct {
	Class   string `json:"class"`
	Name    string `json:"name"`
	Status  int    `json:"status"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
	Message string `json:"message"`
	Cause   string `json:"cause"`
}

// CaseError returns the error case name reported; it fails t when the case
// printed nothing or succeeded.
func (r NodeResult) CaseError(t testing.TB, name string) NodeError {
	t.Helper()
	line, ok := r.Cases[name]
	if !ok {
		t.Fatalf("case %s printed nothing (%v)\nstdout: %s\nstderr: %s", name, r.Err, r.Stdout, r.Stderr)
	}
	var e struct {
		Error *NodeError `json:"error"`
	}
	if err := json.Unmarshal(line, &e); err != nil || e.Error == nil {
		t.Fatalf("case %s did not fail: %s", name, line)
	}
	return *e.Error
}

// RunNode runs e2e/testdata/node/<script> (an .mjs file) with node against
// baseURL (http://127.0.0.1:PORT, no /v1), the npm packages of
// $DETOUR_CLIENTS_DIR, and env (NAME=value: DETOUR_MODEL,
// DETOUR_EMBED_MODEL, DETOUR_CASES, DETOUR_KEY; see lib.mjs). It skips t
// when node or a pinned package is missing (fails it under
// DETOUR_CLIENTS_REQUIRED=1), and fails t when the script itself fails.
func RunNode(t testing.TB, baseURL, script string, env ...string) NodeResult {
	t.Helper()
	modules, node := nodeModules(t)
	home, work := tempHome(t)
	// ESM resolves bare imports from the script's own directory: the
	// scripts run from a copy beside a link to the installed packages.
	files, err := filepath.Glob(filepath.Join(NodeDir(), "*.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", NodeDir(), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(modules, filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	// The Agents SDK exports traces to api.openai.com unless told not to.
	full := append(baseEnv(home), "DETOUR_URL="+baseURL, "OPENAI_AGENTS_DISABLE_TRACING=1")
	full = append(full, env...)
	res := NodeResult{Result: run(node, []string{filepath.Join(work, script)}, full, work, 90*time.Second)}
	res.Home = home
	if res.Err != nil {
		t.Fatalf("node %s: %v\nstdout: %s\nstderr: %s", script, res.Err, res.Stdout, res.Stderr)
	}
	res.Cases = map[string]json.RawMessage{}
	sc := bufio.NewScanner(strings.NewReader(res.Stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var c struct {
			Case string `json:"case"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.Case != "" {
			res.Cases[c.Case] = json.RawMessage(append([]byte(nil), sc.Bytes()...))
		}
	}
	return res
}
