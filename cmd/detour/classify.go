package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/rawjson"
)

// headerFlags collects repeated --header K:V values.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

// verdictJSON is one line of `detour classify` output.
type verdictJSON struct {
	Class        string `json:"class,omitempty"`
	Evidence     string `json:"evidence,omitempty"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
	Error        string `json:"error,omitempty"`
}

func toJSON(v classify.Verdict, status int) verdictJSON {
	if !v.Failed {
		return verdictJSON{Class: "ok", Evidence: fmt.Sprintf("status:%d", status)}
	}
	return verdictJSON{Class: v.Class.String(), Evidence: v.Evidence, RetryAfterMS: v.RetryAfter.Milliseconds()}
}

// runClassify implements `detour classify`:
//
//	detour classify [-c FILE] [--dialect D] [--status N] [--header K:V]... [--stream] [FILE|-]
//	detour classify [-c FILE] --jsonl   < lines {status, body, headers, dialect, stream, provider, request, model}
//	detour classify --suggest [--jsonl] [-c FILE] [FILE|-]   (suggest.go)
//
// The single form reads the body from FILE, or stdin when FILE is "-" or
// absent, and prints {"class":…,"evidence":…} (plus "retry_after_ms" when
// the answer asks to wait); a success prints {"class":"ok","evidence":
// "status:200"}. --status defaults to 200. The --jsonl form writes one
// verdict line per input line, in order; a bad line gets {"error":"line N:
// …"} in its place and the exit status is 1 at the end. With -c the
// configuration's classify.rules apply before the built-in rules.
func runClassify(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("classify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgPath := fs.String("c", "", "configuration `FILE` whose classify.rules apply first")
	dialect := fs.String("dialect", "", "provider dialect: openai, anthropic or gemini")
	status := fs.Int("status", 200, "HTTP status of the answer")
	provider := fs.String("provider", "", "provider name, for rules narrowed by provider")
	stream := fs.Bool("stream", false, "the body arrived inside an SSE stream")
	jsonl := fs.Bool("jsonl", false, "read JSON lines {status, body, headers, dialect, stream, provider, request, model} on stdin")
	suggest := fs.Bool("suggest", false, "read a decision log (or, with --jsonl, answers) and suggest classify.rules for its unknowns")
	var headers headerFlags
	fs.Var(&headers, "header", "response header `K:V` (repeatable)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: detour classify [-c FILE] [--dialect D] [--status N] [--header K:V]... [--stream] [FILE|-]")
		fmt.Fprintln(stderr, "       detour classify [-c FILE] --jsonl < lines")
		fmt.Fprintln(stderr, "       detour classify --suggest [--jsonl] [-c FILE] [FILE|-]")
		fs.PrintDefaults()
	}
	// Flags may come before or after the file.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(files) > 1 || (*jsonl && !*suggest && len(files) > 0) {
		fmt.Fprintln(stderr, "detour classify: at most one FILE, and none with --jsonl")
		return 2
	}
	if _, err := parseDialect(*dialect); err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 2
	}
	hdr := http.Header{}
	for _, kv := range headers {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || strings.TrimSpace(k) == "" {
			fmt.Fprintf(stderr, "detour classify: --header %q: want K:V\n", kv)
			return 2
		}
		hdr.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	c := &classify.Classifier{}
	var dialects map[string]string // with -c, each provider's dialect, for --jsonl lines
	if *cfgPath != "" {
		cfg, err := config.Load(*cfgPath)
		if err != nil {
			fmt.Fprintln(stderr, "detour classify:", err)
			return 1
		}
		c.Rules = cfg.Rules
		dialects = make(map[string]string, len(cfg.Providers))
		for _, p := range cfg.Providers {
			dialects[p.Name] = string(p.Dialect)
		}
		if *provider != "" {
			// The provider's dialect as serve knows it: a rule narrowed by
			// dialect matches its answers (operator review 52).
			d, err := providerDialect(cfg, *provider, *dialect)
			if err != nil {
				fmt.Fprintln(stderr, "detour classify:", err)
				return 2
			}
			*dialect = d
		}
	}
	if *suggest {
		in, closeIn, err := openInput(files, stdin)
		if err != nil {
			fmt.Fprintln(stderr, "detour classify:", err)
			return 1
		}
		defer closeIn()
		return runSuggest(c, dialects, *jsonl, in, stdout, stderr)
	}
	if *jsonl {
		return classifyLines(c, dialects, stdin, stdout, stderr)
	}

	var body []byte
	var err error
	if len(files) == 0 || files[0] == "-" {
		body, err = io.ReadAll(io.LimitReader(stdin, 64<<20))
	} else {
		body, err = os.ReadFile(files[0])
	}
	if err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 1
	}
	v := classifyAnswer(c, classify.Response{Status: *status, Header: hdr, Body: body,
		Dialect: classify.Dialect(*dialect), Provider: *provider, Stream: *stream})
	return writeJSON(stdout, stderr, toJSON(v, *status))
}

func parseDialect(d string) (classify.Dialect, error) {
	switch classify.Dialect(d) {
	case "", classify.OpenAI, classify.Anthropic, classify.Gemini:
		return classify.Dialect(d), nil
	}
	return "", fmt.Errorf("unknown dialect %q (want openai, anthropic or gemini)", d)
}

// lineInput is one --jsonl input line. Body is the raw body as a JSON
// string; a JSON object or array there is taken as the body's text itself.
type lineInput struct {
	Status   *int                    `json:"status"`
	Body     json.RawMessage         `json:"body"`
	Headers  map[string]headerValues `json:"headers"`
	Dialect  string                  `json:"dialect"`
	Provider string                  `json:"provider"`
	Stream   bool                    `json:"stream"`
	// Request (the client's request body, as a JSON string) and Model (the
	// model sent upstream) decide whose a not-found answer is
	// (docs/behaviour.md, "Not found: whose?").
	Request *string `json:"request"`
	Model   string  `json:"model"`
}

// headerValues is a header's value on a --jsonl line: a string, or a list
// of strings as Go's http.Header writes it (a header may repeat).
type headerValues []string

func (h *headerValues) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '[' {
		var vs []string
		if err := json.Unmarshal(b, &vs); err != nil {
			return errors.New("headers: want a JSON string or a list of strings")
		}
		*h = vs
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return errors.New("headers: want a JSON string or a list of strings")
	}
	*h = headerValues{s}
	return nil
}

func classifyLines(c *classify.Classifier, dialects map[string]string, stdin io.Reader, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	code := 0
	n := 0
	for sc.Scan() {
		n++
		out, err := classifyLine(c, dialects, sc.Bytes())
		if err != nil {
			out = verdictJSON{Error: fmt.Sprintf("line %d: %v", n, err)}
			code = 1
		}
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(stderr, "detour classify:", err)
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		enc.Encode(verdictJSON{Error: fmt.Sprintf("line %d: %v", n+1, err)})
		code = 1
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 1
	}
	return code
}

func classifyLine(c *classify.Classifier, dialects map[string]string, line []byte) (verdictJSON, error) {
	r, err := parseAnswer(line, dialects)
	if err != nil {
		return verdictJSON{}, err
	}
	return toJSON(classifyAnswer(c, r), r.Status), nil
}

// providerDialect is the dialect of the provider named in cfg, where
// --dialect (given, "" when not) agrees with it; an error names the
// configured providers when cfg has no such provider.
func providerDialect(cfg *config.Config, name, given string) (string, error) {
	p, ok := cfg.Provider(name)
	if !ok {
		names := make([]string, len(cfg.Providers))
		for i := range cfg.Providers {
			names[i] = cfg.Providers[i].Name
		}
		return "", fmt.Errorf("--provider %q: %s configures no such provider (providers: %s)", name, cfg.File, strings.Join(names, ", "))
	}
	if given != "" && given != string(p.Dialect) {
		return "", fmt.Errorf("--dialect %s: provider %s speaks %s in %s", given, name, p.Dialect, cfg.File)
	}
	return string(p.Dialect), nil
}

// parseAnswer reads one --jsonl input line as an upstream answer; a line
// naming a provider of dialects (the -c file's) and no dialect takes that
// provider's, as serve reads its answers (review 52), and one naming
// another is an error.
func parseAnswer(line []byte, dialects map[string]string) (classify.Response, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return classify.Response{}, errors.New("empty line")
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var in lineInput
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return classify.Response{}, fmt.Errorf("%s: want a JSON %s", te.Field, te.Type)
		}
		return classify.Response{}, err
	}
	if dec.More() {
		return classify.Response{}, errors.New("trailing data after the JSON object")
	}
	status := 200
	if in.Status != nil {
		status = *in.Status
	}
	if status < 100 || status > 999 {
		return classify.Response{}, fmt.Errorf("status %d out of range", status)
	}
	if in.Provider != "" && !providerName(in.Provider) {
		// Written back in --suggest's comment and rule (hostile 68d: a
		// terminal's escape sequence there drove the operator's terminal).
		return classify.Response{}, fmt.Errorf("provider %q: not a name a configuration can hold (a blank, a control or an invisible character)", in.Provider)
	}
	if pd, ok := dialects[in.Provider]; ok && in.Provider != "" {
		if in.Dialect != "" && in.Dialect != pd {
			return classify.Response{}, fmt.Errorf("dialect %s: provider %s speaks %s in the configuration", in.Dialect, in.Provider, pd)
		}
		in.Dialect = pd
	}
	d, err := parseDialect(in.Dialect)
	if err != nil {
		return classify.Response{}, err
	}
	var body []byte
	if len(in.Body) > 0 && in.Body[0] == '"' {
		var s string
		if err := json.Unmarshal(in.Body, &s); err != nil {
			return classify.Response{}, fmt.Errorf("body: %v", err)
		}
		body = []byte(s)
	} else if len(in.Body) > 0 && !bytes.Equal(in.Body, []byte("null")) {
		body = in.Body
	}
	hdr := http.Header{}
	for k, vs := range in.Headers {
		for _, v := range vs {
			hdr.Add(k, v)
		}
	}
	r := classify.Response{Status: status, Header: hdr, Body: body, Dialect: d,
		Provider: in.Provider, Stream: in.Stream, Model: in.Model}
	if in.Request != nil {
		r.Request = []byte(*in.Request)
	}
	return r, nil
}

func writeJSON(stdout, stderr io.Writer, v verdictJSON) int {
	b, err := json.Marshal(v)
	if err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 1
	}
	if _, err := stdout.Write(append(b, '\n')); err != nil {
		fmt.Fprintln(stderr, "detour classify:", err)
		return 1
	}
	return 0
}

// providerName reports whether s can name a provider in a configuration
// (internal/config: no blank or control character) and has no character
// drawn as nothing (rawjson.Invisible: a bidi override, a zero-width space).
func providerName(s string) bool {
	return utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || rawjson.Invisible(r)
	}) < 0
}
