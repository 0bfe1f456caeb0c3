package classify

import "testing"

// Review 61j (1): fetchedValue compares the member name "url" raw
// (string(name) == "url"), where isKey, beside it, decodes escapes. A
// client writes {"image_url": {"\u0075rl": "https://its.host/x"}}: every
// JSON parser upstream reads it as "url" and fetches the host, whose
// reason phrase ("403 Account Suspended") is then read as the relay's
// own: review 61g's hole, reopened by one escape.
func TestReview61jEscapedURLMemberIsFetched(t *testing.T) {
	const u = "https://img.attacker.example/cat.png"
	dl := `{"error":{"message":"Failed to download ` + u + `: 403 Account Suspended"}}`
	reqs := map[string]string{
		"plain (control)": `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`,
		"escaped url":     `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"\u0075rl":"` + u + `"}}]}]}`,
		"escaped source":  `{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","\u0075rl":"` + u + `"}}]}]}`,
	}
	for name, req := range reqs {
		v := Classify(Response{Status: 400, Body: []byte(dl), Request: []byte(req), Model: "m"})
		if v.Class == Auth {
			t.Errorf("%s: got %s (%s): the client's host's reason phrase read as the account's", name, v.Class, v.Evidence)
		}
	}
}

// Review 61j (2): 已下线 ("taken offline", phrasesgone.go) is read with no
// subject check, where its English twin "has been taken offline" is
// goneNoun (the endpoint's only where the sentence names a model, an
// endpoint or an API) and otherwise a feature of the request
// (featureGonePhrases: unknown). A feature or a parameter taken offline
// (Tencent Cloud's own API docs say "该功能已下线" of parameters) now
// reads as the model gone: unavailable, the endpoint cooled for
// unavailable_cooldown (24h) for everyone (docs/behaviour.md, "A gone
// model is the model, not a feature of it"). Before round 61 each of
// these was unknown.
func TestReview61jFeatureTakenOfflineIsNotGone(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search"}]}`
	for _, c := range []struct {
		status int
		body   string
	}{
		{400, `{"error":{"message":"联网搜索功能已下线","type":"invalid_request_error"}}`},
		{400, `{"error":{"message":"参数 functions 已下线，请改用 tools","type":"invalid_request_error"}}`},
		// The English twin, for comparison: unknown.
		{400, `{"error":{"message":"The web search feature has been taken offline","type":"invalid_request_error"}}`},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(req), Model: "m"})
		if v.Class == Unavailable {
			t.Errorf("%d %s: got %s (%s), a feature gone read as the endpoint's model gone", c.status, c.body, v.Class, v.Evidence)
		}
	}
}

// Review 61j (3): 无权访问 (forbidden, phrasesaccount.go) now outranks the
// gone reading of Volcano Ark's InvalidEndpointOrModel.NotFound in its
// Chinese form, "模型或者推理接入点不存在或者您无权访问它" (Ark's error table),
// and of "模型不存在或无权访问" (was phrase:模型不存在): the English twin
// ("… does not exist or you do not have access to it") reads unavailable,
// as both did before round 61. Forbidden does not move a fastest or pool
// route on (DefaultNextTarget), so a wrong endpoint id now stops the walk.
func TestReview61jArkNotFoundChineseStaysGone(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		status int
		body   string
	}{
		{404, `{"error":{"code":"InvalidEndpointOrModel.NotFound","message":"模型或者推理接入点不存在或者您无权访问它。 Request id: 0217","param":"","type":"NotFound"}}`},
		{400, `{"error":{"message":"模型不存在或无权访问","type":"invalid_request_error"}}`},
		// The English twin, for comparison.
		{404, `{"error":{"code":"InvalidEndpointOrModel.NotFound","message":"The model or endpoint ep-x does not exist or you do not have access to it. Request id: 0217","param":"","type":"NotFound"}}`},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(req), Model: "m"})
		if v.Class != Unavailable {
			t.Errorf("%d %s: got %s (%s), want unavailable as in English", c.status, c.body, v.Class, v.Evidence)
		}
	}
}
