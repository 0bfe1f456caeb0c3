package classify

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Review 61h: review 61g's fix discarded every phrase of an account or
// endpoint class (quota, auth, forbidden, rate_limited, unavailable,
// server_error) once any text of the answer named a URL the client's
// request held as a whole string value: a provider's own docs or billing
// link, which most quota and key messages end with, held by the request (a
// web search result's url, a message that is only the link) hid 44 corpus
// answers' classes. Now only a URL the client gave the upstream to fetch
// (an image's, a file's: fetchedValue) does. Sweep: every corpus answer of
// those classes whose body names a URL, classified against a request that
// holds that URL as a search result's url or as a whole message.
var review61hURL = regexp.MustCompile(`https?://[^\s"'\\)<>\]` + "`" + `]+`)

func review61hReqs(u string) map[string]string {
	return map[string]string{
		"image":      img32a(u),
		"search-url": `{"model":"m","messages":[{"role":"user","content":"rate limits?"},{"role":"assistant","content":[{"type":"web_search_tool_result","tool_use_id":"t","content":[{"type":"web_search_result","url":"` + u + `","title":"Rate limits"}]}]},{"role":"user","content":"go on"}]}`,
		"bare-msg":   `{"model":"m","messages":[{"role":"user","content":"` + u + `"}]}`,
	}
}

func TestReview61hCorpusClientURLSweep(t *testing.T) {
	cases := loadCorpus(t)
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	lost, tried := 0, 0
	byPair := map[string]int{}
	for _, name := range names {
		c := cases[name]
		want, err := ParseClass(c.Class)
		if err != nil || !aboutProvider(want) || c.Miss != "" || c.Request != "" {
			continue
		}
		base := Classify(c.response())
		if base.Class != want {
			continue
		}
		body := strings.ReplaceAll(c.Body, `\/`, `/`)
		urls := review61hURL.FindAllString(body, -1)
		if len(urls) == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, u := range urls {
			u = string(trimURL([]byte(u)))
			if seen[u] || !strings.Contains(u, "://") {
				continue
			}
			seen[u] = true
			tried++
			r := c.response()
			for _, rn := range []string{"search-url", "bare-msg"} {
				r.Request = []byte(review61hReqs(u)[rn])
				v := Classify(r)
				if v.Class != want {
					lost++
					byPair[fmt.Sprintf("%s->%s", want, v.Class)]++
					t.Logf("LOST %s (%d) [%s]: %s -> %s (%s) with the request holding %s", name, c.Status, rn, want, v.Class, v.Evidence, u)
				}
			}
		}
	}
	t.Logf("corpus answers of provider classes naming a URL, tried %d URLs: %d lost their class; by change: %v", tried, lost, byPair)
	// The one known before review 61g: SageMaker's 424 ModelError read by
	// failedDependency, whose "from primary" status beside a URL the client
	// holds is taken for the resource's (as review 32a reads any status
	// quoted beside a client URL).
	if lost > 2 || lost > 0 && byPair["server_error->unknown"] != lost {
		t.Errorf("%d corpus answers lost their class to a link the client's request holds: %v", lost, byPair)
	}
}

// Built cases: real vendors' own failure texts that carry their docs URL,
// and a request that holds that URL as a whole value (an agent that looked
// the page up: a web_search_result's "url", a fetched page's citation).
func TestReview61hVendorDocsURL(t *testing.T) {
	type tc struct {
		name   string
		status int
		body   string
		url    string
		want   Class
	}
	for _, c := range []tc{
		{"openai insufficient_quota at 429, no code", 429,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"insufficient_quota","param":null,"code":null}}`,
			"https://platform.openai.com/docs/guides/error-codes/api-errors", Quota},
		{"openai quota relayed at 500 (one-api style)", 500,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"upstream_error","param":"","code":null}}`,
			"https://platform.openai.com/docs/guides/error-codes/api-errors", Quota},
		{"openai quota relayed at 400", 400,
			`{"error":{"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.","type":"new_api_error"}}`,
			"https://platform.openai.com/docs/guides/error-codes/api-errors", Quota},
		{"anthropic rate limit relayed at 500", 500,
			`{"type":"error","error":{"type":"api_error","message":"This request would exceed the rate limit for your organization of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage."}}`,
			"https://docs.claude.com/en/api/rate-limits", RateLimited},
		{"openrouter 402 credits at 400", 400,
			`{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":400}}`,
			"https://openrouter.ai/settings/credits", Quota},
		{"gemini key invalid 400 with help link", 400,
			`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Google developers console","url":"https://console.developers.google.com"}]}]}}`,
			"https://console.developers.google.com", Auth},
	} {
		clean := Classify(Response{Status: c.status, Body: []byte(c.body), Model: "m", Request: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
		for rn, req := range review61hReqs(c.url) {
			if rn == "image" {
				continue // a URL given to fetch is the client's resource, whatever its host (review 61g)
			}
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Model: "m", Request: []byte(req)})
			if v.Class != clean.Class {
				t.Errorf("%s [%s]: %s (%s) without the URL in the request, %s (%s) with it", c.name, rn, clean.Class, clean.Evidence, v.Class, v.Evidence)
			}
		}
		if clean.Class != c.want {
			t.Logf("note %s: reads %s (%s) even without the URL (want %s)", c.name, clean.Class, clean.Evidence, c.want)
		}
	}
}

// A relay that reports its own account state in error.message and the
// client's image in another member: the key's allowance words stay the
// relay's.
func TestReview61hURLInOtherText(t *testing.T) {
	const u = "https://cdn.example.com/cat.png"
	body := `{"error":{"message":"该令牌额度已用尽 (quota exhausted for this token)","type":"new_api_error","param":"` + u + `"}}`
	clean := Classify(Response{Status: 403, Body: []byte(body), Model: "m", Request: []byte(`{"model":"m","messages":[]}`)})
	v := Classify(Response{Status: 403, Body: []byte(body), Model: "m", Request: []byte(img32a(u))})
	t.Logf("clean %s (%s); with the client's URL in another member: %s (%s)", clean.Class, clean.Evidence, v.Class, v.Evidence)
	if clean.Class != v.Class {
		t.Errorf("the phrase in error.message was dropped for a URL in another member: %s -> %s", clean.Class, v.Class)
	}
}
