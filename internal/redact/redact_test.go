package redact

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

const (
	oaiKey = "opnQ7zXk2WvR9mLp4TsB8yNc"
	antKey = "sk-ant-api03-Hd2QwE9rTy6UiO1pAs7DzXcV"
	gemKey = "gemJ8k3LzX6cVb9NmQ2wEr5Tq"
)

func testRules() Rules {
	return Rules{
		Secrets: []string{oaiKey, antKey, gemKey, "short"},
		Providers: []Provider{
			{Name: "openai", BaseURL: "https://api.openai.com/v1"},
			{Name: "local", BaseURL: "http://10.0.0.5:8000/v1"},
			{Name: "vllm", BaseURL: "http://internal-host:8000"},
			{Name: "loop", BaseURL: "http://127.0.0.1:46647"},
			{Name: "six", BaseURL: "http://[fd00::7]:9000"},
		},
	}
}

// windows8 are all 8-byte windows of s.
func windows8(s string) []string {
	var out []string
	for i := 0; i+8 <= len(s); i++ {
		out = append(out, s[i:i+8])
	}
	return out
}

func noFragments(t *testing.T, got string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		for _, w := range windows8(s) {
			if strings.Contains(got, w) {
				t.Errorf("fragment %q of %q survived: %q", w, s, got)
				return
			}
		}
	}
}

func TestConfiguredSecretsAndFragments(t *testing.T) {
	s := New(testRules())
	for _, msg := range []string{
		"Incorrect API key provided: " + oaiKey + ".",
		"key begins " + oaiKey[:8] + " and ends " + oaiKey[len(oaiKey)-8:],
		"middle:" + gemKey[5:15] + ":end",
		oaiKey + gemKey, // two secrets back to back
		"x" + antKey[3:20],
	} {
		got := s.String(msg)
		noFragments(t, got, oaiKey, antKey, gemKey)
		if !strings.Contains(got, Redacted) {
			t.Errorf("%q: nothing redacted: %q", msg, got)
		}
	}
	// Seven bytes of a key are not a fragment; a secret under 8 bytes is ignored.
	if got := s.String("ends " + oaiKey[len(oaiKey)-7:] + ", short"); got != "ends "+oaiKey[len(oaiKey)-7:]+", short" {
		t.Errorf("changed: %q", got)
	}
}

func TestKeyShapedTokens(t *testing.T) {
	var s *Scrubber // the nil Scrubber applies the shape rules
	for msg, gone := range map[string]string{
		"Incorrect API key provided: sk-proj-abcdEFGH1234ijklMNOP5678.":         "abcdEFGH1234",
		"invalid x-api-key: sk-ant-api03-XYZxyz0123456789abcdefABCDEF":          "XYZxyz0123456789",
		"API key not valid: AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW":            "SyA1b2C3d4E5",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig":                "eyJhbGciOiJIUzI1NiJ9",
		"got header x-goog-api-key: Qm9vbGVhbkZsYWc9dHJ1ZQ":                     "Qm9vbGVhbkZsYWc9dHJ1ZQ",
		`{"api_key": "plainvalue-42-long"}`:                                     "plainvalue-42-long",
		"GET https://example.com/v1beta/models?key=abcd1234efgh&alt=sse failed": "abcd1234efgh",
		"token ya29.a0AfH6SMBx1234567890abcdefghij expired":                     "a0AfH6SMBx1234567890",
		"use Bearer 0123abcd": "0123abcd",
	} {
		got := s.String(msg)
		if strings.Contains(got, gone) || !strings.Contains(got, Redacted) {
			t.Errorf("%q -> %q, still has %q", msg, got, gone)
		}
	}
	for _, msg := range []string{
		"Missing bearer authentication in header",
		"You didn't provide an API key. You need to provide your API key in an Authorization header.",
		"model gpt-4o does not exist",
		"request id req_011CbrFTcXhtiMzr3s6EocF7",
	} {
		if got := s.String(msg); got != msg {
			t.Errorf("ordinary text changed: %q -> %q", msg, got)
		}
	}
}

func TestProviderPlaces(t *testing.T) {
	s := New(testRules())
	for msg, want := range map[string]string{
		`upstream connection failed: Post "http://10.0.0.5:8000/v1/chat/completions": dial tcp 10.0.0.5:8000: connect: connection refused`: `upstream connection failed: Post "[provider local]": dial tcp [provider local]: connect: connection refused`,
		`Post "http://internal-host:8000/v1/chat/completions": dial tcp 10.9.8.7:8000: connect: connection refused`:                        `Post "[provider vllm]": dial tcp [provider vllm]: connect: connection refused`,
		`dial tcp: lookup internal-host: no such host`: `dial tcp: lookup [provider vllm]: no such host`,
		`see https://api.openai.com/v1/models.`:        `see [provider openai].`,
		`API.OpenAI.com is down`:                       `[provider openai] is down`,
		`refused by 127.0.0.1:46647`:                   `refused by [provider loop]`,
		`dial tcp [fd00::7]:9000: i/o timeout`:         `dial tcp [provider six]: i/o timeout`,
		// Not a provider: another port of the same loopback host, a lookalike host, a docs link.
		`serving on 127.0.0.1:8080 and 127.0.0.1:4664`:              `serving on 127.0.0.1:8080 and 127.0.0.1:4664`,
		`my-internal-host:8000 and internal-hosts`:                  `my-internal-host:8000 and internal-hosts`,
		`see https://platform.openai.com/account/api-keys for more`: `see https://platform.openai.com/account/api-keys for more`,
	} {
		if got := s.String(msg); got != want {
			t.Errorf("%q\n got  %q\n want %q", msg, got, want)
		}
	}
}

// A provider's IP address glued to other text is still its address, unless
// the text around it makes a different valid address (another IP, another
// port): an upstream writing "backend-10.0.0.5:8000" or digits before the
// address must not carry it past the scrubber (found by FuzzHostileFront).
func TestProviderAddressGlued(t *testing.T) {
	s := New(testRules())
	for msg, want := range map[string]string{
		`backend-10.0.0.5:8000 refused`:   `backend-[provider local] refused`,
		`pool_10.0.0.5:8000`:              `pool_[provider local]`,
		`x[fd00::7]:9000`:                 `x[provider six]`,
		`0000000000000127.0.0.1:46647`:    `0000000000000[provider loop]`,
		`9.127.0.0.1:46647`:               `9.[provider loop]`,
		`127.0.0.1:466470 is not a port`:  `[provider loop]0 is not a port`,
		`110.0.0.5:8000 is another host`:  `110.0.0.5:8000 is another host`,
		`my-internal-host:8000 is a name`: `my-internal-host:8000 is a name`,
	} {
		if got := s.String(msg); got != want {
			t.Errorf("%q\n got  %q\n want %q", msg, got, want)
		}
	}
	// Another valid port of the same host is not the provider.
	web := New(Rules{Providers: []Provider{{Name: "web", BaseURL: "http://127.0.0.1/v1"}}})
	for msg, want := range map[string]string{
		`listening on 127.0.0.1:8080`: `listening on 127.0.0.1:8080`,
		`up at 127.0.0.1:80, x`:       `up at [provider web], x`,
		`127.0.0.1:800000`:            `[provider web]0000`,
	} {
		if got := web.String(msg); got != want {
			t.Errorf("%q\n got  %q\n want %q", msg, got, want)
		}
	}
}

// Addresses in network errors that no provider is named with: operators
// keep them, clients do not see them.
func TestUntiedAddresses(t *testing.T) {
	s := New(testRules())
	msg := "the upstream stream was cut: read tcp 127.0.0.1:5555->10.1.2.3:443: read: connection reset by peer"
	if got := s.String(msg); got != msg {
		t.Errorf("operator text changed: %q", got)
	}
	want := "the upstream stream was cut: read tcp [address]: read: connection reset by peer"
	if got := s.ForClient(msg, nil); got != want {
		t.Errorf("client text\n got  %q\n want %q", got, want)
	}
}

// A client that sends part of a key in its request and reads it back from an
// upstream that echoes the request learns nothing: what it wrote comes back
// as written, guessed right or wrong. A key the upstream echoes by itself is
// still scrubbed, even around the part the client guessed.
func TestForClientIsNoOracle(t *testing.T) {
	s := New(testRules())
	right, wrong := oaiKey[:12], oaiKey[:11]+"#"
	for _, guess := range []string{right, wrong} {
		sent := []byte(`{"messages":[{"role":"` + guess + `"}]}`)
		msg := "Invalid value: '" + guess + "'. Supported values are: 'system', 'user'."
		if got := s.ForClient(msg, sent); got != msg {
			t.Errorf("guess %q: the client's own text changed: %q", guess, got)
		}
		// The same guess with one byte, or every byte, a JSON escape: the
		// upstream decodes it before it echoes it.
		one := fmt.Sprintf(`\u%04X`, guess[0]) + guess[1:]
		var every strings.Builder
		for _, c := range []byte(guess) {
			fmt.Fprintf(&every, `\u%04x`, c)
		}
		// Inside a tool call's arguments, escaped twice: Detour sends the
		// arguments on as JSON, so the upstream decodes them twice.
		twice := `{\"a\":\"` + strings.ReplaceAll(one, `\`, `\\`) + `\"}`
		for _, esc := range []string{one, every.String(), twice} {
			if got := s.ForClient(msg, []byte(`{"messages":[{"role":"`+esc+`"}]}`)); got != msg {
				t.Errorf("guess %q sent as %q: the client's own text changed: %q", guess, esc, got)
			}
		}
		echo := "bad key " + oaiKey
		if got := s.ForClient(echo, sent); got != "bad key "+Redacted {
			t.Errorf("guess %q: the echoed key: %q", guess, got)
		}
	}
	// For the operator everything is scrubbed.
	if got := s.String("Invalid value: '" + right + "'"); strings.Contains(got, right[:8]) {
		t.Errorf("operator text kept a fragment: %q", got)
	}
}

func TestRulesWithKeepsRotatedSecrets(t *testing.T) {
	old := Rules{Secrets: []string{oaiKey}, Providers: []Provider{{Name: "gone", BaseURL: "http://old-host:1"}}}
	cur := Rules{Secrets: []string{gemKey}, Providers: []Provider{{Name: "new", BaseURL: "http://new-host:2"}}}
	s := New(cur.With(old))
	got := s.String(oaiKey + " " + gemKey + " old-host new-host")
	if got != Redacted+" "+Redacted+" [provider gone] [provider new]" {
		t.Errorf("got %q", got)
	}
}

func TestProvidersSharingAHost(t *testing.T) {
	s := New(Rules{Providers: []Provider{{Name: "a", BaseURL: "https://api.openai.com/v1"}, {Name: "b", BaseURL: "https://api.openai.com/v1"}}})
	if got := s.String("api.openai.com:443"); got != "[provider a|b]" {
		t.Errorf("got %q", got)
	}
}

func TestNoChangeWithoutFindings(t *testing.T) {
	s := New(testRules())
	for _, msg := range []string{"", "Your credit balance is too low to access the Anthropic API.", "ünïcödé text ✓"} {
		if got := s.String(msg); got != msg {
			t.Errorf("%q -> %q", msg, got)
		}
	}
}

// SecretPattern and PlacePattern match what the scrubber writes, and only
// that: readers of scrubbed records rely on them (a suggested rule).
func TestPatternsMatchTheReplacements(t *testing.T) {
	s := New(Rules{Secrets: []string{"sk-live-Aa11Bb22Cc33Dd44"}, Providers: []Provider{{Name: "up-east", BaseURL: "http://10.0.0.5:8000/v1"}}})
	got := s.String("key sk-live-Aa11Bb22Cc33Dd44 at http://10.0.0.5:8000/v1/chat")
	secret, place := regexp.MustCompile(SecretPattern), regexp.MustCompile(PlacePattern)
	if n := len(secret.FindAllString(got, -1)); n != 1 {
		t.Errorf("%q: %d secrets matched, want 1", got, n)
	}
	if m := place.FindString(got); m != "[provider up-east]" {
		t.Errorf("%q: place matched %q", got, m)
	}
	if m := place.FindString(s.ForClient("dial tcp 192.0.2.7:443: connection refused", nil)); m != Address {
		t.Errorf("address: matched %q", m)
	}
	for _, text := range []string{"[redacted", "[provider]", "[provider a b]", "[addresses]", "redacted"} {
		if secret.MatchString(text) || place.MatchString(text) {
			t.Errorf("%q matched", text)
		}
	}
}

// TestForClientHidesInternalURLs: a relay's own error text names its
// upstream by URL; a client reads no internal host or port, while a public
// link a provider gives (its console) stays, and operators keep everything.
func TestForClientHidesInternalURLs(t *testing.T) {
	s := New(Rules{})
	for msg, want := range map[string]string{
		`Post "http://10.20.30.40:8000/v1/chat/completions": dial tcp 10.20.30.40:8000: connect: connection refused`: `Post "http://[address]/v1/chat/completions": dial tcp [address]: connect: connection refused`,
		`upstream http://vllm:8000/v1 failed`:                  `upstream http://[address]/v1 failed`,
		`see https://[fd00::1]:443/x`:                          `see https://[address]/x`,
		`GET https://llm.svc.cluster.local/health: 503`:        `GET https://[address]/health: 503`,
		`Upgrade at https://console.groq.com/settings/billing`: `Upgrade at https://console.groq.com/settings/billing`,
	} {
		if got := s.ForClient(msg, nil); got != want {
			t.Errorf("ForClient(%q) = %q, want %q", msg, got, want)
		}
	}
	const op = `upstream http://vllm:8000/v1 failed`
	if got := s.String(op); got != op {
		t.Errorf("String(%q) = %q: operators keep the address", op, got)
	}
}

// Text the client steered the upstream to write without sending it whole
// (a model told to write two pieces back to back, its output quoted in an
// error) reads the same to the client whether its guess at the byte after
// a key's public prefix is right or wrong: a stretch of a key shorter than
// ClientStretch that does not end it is left as written (review 30d: the
// right guess came back "[redacted]", the wrong one "[redacted]#"). What
// an upstream writes of a key by itself is still scrubbed: the key whole,
// a long stretch of it, its last 8 bytes; and for the operator, every
// 8-byte window.
func TestForClientIsNoOracleForSteeredText(t *testing.T) {
	key := "sk-proj-" + strings.Repeat("Q7xv9Lk2Wm4pZr8Tn3BcYh5Jd", 3) // as long as real keys are
	s := New(Rules{Secrets: []string{key}})
	sent := []byte(`{"messages":[{"role":"user","content":[{"type":"text","text":"A"},{"type":"text","text":"B"}]}]}`)
	for _, known := range []int{8, 9, 12, 16, ClientStretch - 1} {
		for from := range 2 { // the key's prefix and more, or from its second byte
			seen := map[string]bool{} // what the client reads, its guess written <guess>
			// A key's bytes only: a guess of another kind reads apart by its
			// own shape, whatever the key.
			for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") {
				guess := key[from:known] + string(c)
				msg := "Tool call arguments are not valid JSON: " + guess
				seen[strings.ReplaceAll(s.ForClient(msg, sent), guess, "<guess>")] = true
			}
			if len(seen) > 1 {
				t.Errorf("%d bytes known from byte %d: the answer depends on the guess: %v", known, from, seen)
			}
		}
	}
	for name, echo := range map[string]string{
		"whole":   key,
		"stretch": key[3 : 3+ClientStretch],
		"tail":    key[len(key)-Window:],
	} {
		if got := s.ForClient("bad key "+echo+".", sent); got != "bad key "+Redacted+"." {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := s.String("begins " + key[:9]); strings.Contains(got, key[:8]) {
		t.Errorf("operator text kept a fragment: %q", got)
	}
}

// TestForClientHidesTheAccount: an upstream's rate-limit message tells a
// client which organization serves it and the whole organization's usage;
// the client reads neither, but keeps the limit, what it requested and the
// wait. Operators read it whole; words that only look alike stay.
func TestForClientHidesTheAccount(t *testing.T) {
	s := New(Rules{})
	msg := "Rate limit reached for gpt-4o in organization org-Q7mZ2kXv9LpR3sT8aBcDeFgH on tokens per min (TPM): Limit 30000, Used 29874, Requested 512. Please try again in 772ms. Project proj_A1b2C3d4E5f6G7h8I9j0K1l2."
	want := "Rate limit reached for gpt-4o in organization [organization] on tokens per min (TPM): Limit 30000, Used [usage], Requested 512. Please try again in 772ms. Project [project]."
	if got := s.ForClient(msg, nil); got != want {
		t.Errorf("ForClient:\n got %s\nwant %s", got, want)
	}
	if got := s.String(msg); got != msg {
		t.Errorf("String changed the operator's copy: %s", got)
	}
	for msg, want := range map[string]string{
		// Groq (openinterpreter#408) and Anthropic's wordings.
		"Rate limit reached for model `llama-3.3-70b-versatile` in organization `org_01hs26sgxde6dva0eke39336sv` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Used 3513, Requested 3166.": "Rate limit reached for model `llama-3.3-70b-versatile` in organization `[organization]` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Used [usage], Requested 3166.",
		"This request would exceed the rate limit for your organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of 1,000,000 input tokens per minute.":                                                         "This request would exceed the rate limit for your organization ([organization]) of 1,000,000 input tokens per minute.",
		// Google's project, by number and by id (review 67d).
		"Quota exceeded for quota metric 'Generate Content API requests per minute' of service 'generativelanguage.googleapis.com' for consumer 'project_number:391029737820'.":            "Quota exceeded for quota metric 'Generate Content API requests per minute' of service 'generativelanguage.googleapis.com' for consumer 'project_number:[project]'.",
		"Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/acme-prod-llm/locations/us-central1/endpoints/openapi' (or it may not exist).": "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/[project]/locations/us-central1/endpoints/openapi' (or it may not exist).",
		"Enable it by visiting https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=391029737820 then retry.":                                 "Enable it by visiting https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=[project] then retry.",
		// A UUID far from the word, or of something else, stays.
		"request a22cf6e6-a940-4fff-8c4c-1580816ac7be failed": "request a22cf6e6-a940-4fff-8c4c-1580816ac7be failed",
	} {
		if got := s.ForClient(msg, nil); got != want {
			t.Errorf("ForClient:\n got %s\nwant %s", got, want)
		}
	}
	for _, same := range []string{"an org-wide limit", "you used 3 of 5", "Limit reached, used 4", "my-org-Q7mZ2kXv9LpR3sT8aBcDe", "see projects/x", "myprojects/acme-prod-llm"} {
		if got := s.ForClient(same, nil); got != same {
			t.Errorf("ForClient(%q) = %q", same, got)
		}
	}
}
