package classify

import (
	"math/rand"
	"strings"
	"testing"
)

// Review 61g: hostile probes against round 61's classifier changes, each
// failing before its fix (the client's host, the format characters, the
// routing member that narrows nothing).

// (1) The client's own host answers a fetch with a reason phrase (or a
// page) of its choosing. A server that downloads the client's image quotes
// what the host said: Python requests' HTTPError prints the host's reason
// phrase as sent ("429 Client Error: <reason> for url: …", requests'
// raise_for_status uses Response.reason; Go's resp.Status likewise keeps
// the status line's text). Review 32a guarded the standard reason phrases
// ("Too Many Requests", "Payment Required": notClient), but the attacker
// picks the reason phrase: "Rate Limited" (new in a 5xx), "Account
// Suspended" (new, auth — also the title of every suspended cPanel host's
// page), 无权访问, 官方限速, "Quota insuffisant".
func TestReview61gClientHostReasonPhrase(t *testing.T) {
	const u = "https://img.attacker.example/cat.png"
	req := img32a(u)
	reqs := func(code, reason string) string {
		return `{"error":{"message":"` + code + ` Client Error: ` + reason + ` for url: ` + u + `","type":"InternalServerError","param":null,"code":null}}`
	}
	dl := func(tail string) string {
		return `{"error":{"message":"Failed to download ` + u + `: ` + tail + `"}}`
	}
	runHostile(t, []hostileCase{
		// New in round 61.
		{name: "requests 429 'Rate Limited', 500 (new 5xx phrase)", status: 500, body: reqs("429", "Rate Limited"), req: req, model: "m", notAny: []Class{RateLimited}},
		{name: "download 429 'Rate Limited', 502 (new 5xx phrase)", status: 502, body: dl("429 Rate Limited"), req: req, model: "m", notAny: []Class{RateLimited}},
		{name: "download 403 'Account Suspended', 400 (new auth phrase)", status: 400, body: dl("403 Account Suspended"), req: req, model: "m", notAny: []Class{Auth}},
		{name: "requests 403 'Account Suspended', 400 (new auth phrase)", status: 400, body: reqs("403", "Account Suspended"), req: req, model: "m", notAny: []Class{Auth}},
		{name: "download 403 无权访问, 400 (new forbidden phrase)", status: 400, body: dl("403 无权访问"), req: req, model: "m", notAny: []Class{Forbidden}},
		{name: "download 429 官方限速, 503 (new 5xx phrase)", status: 503, body: dl("429 官方限速"), req: req, model: "m", notAny: []Class{RateLimited}},
		{name: "download 402 'Quota insuffisant', 400 (new quota phrase)", status: 400, body: dl("402 Quota insuffisant"), req: req, model: "m", notAny: []Class{Quota}},
		{name: "download 402 积分不足, 500 (new 5xx quota phrase)", status: 500, body: dl("402 积分不足"), req: req, model: "m", notAny: []Class{Quota}},
		// Before round 61 (for scale: the same hole in older phrases).
		{name: "download 429 'Rate Limit Exceeded', 400 (older 'rate limit')", status: 400, body: dl("429 Rate Limit Exceeded"), req: req, model: "m", notAny: []Class{RateLimited}},
		// Controls: the standard reason phrases review 32a guarded.
		{name: "control: download 429 'Too Many Requests', 400", status: 400, body: dl("429 Too Many Requests"), req: req, model: "m", notAny: []Class{RateLimited}},
	})
}

// (2) Echo transformations of the new phrases. Controls that held are in
// TestReview61gEchoTransformsHeld; the ones below are invisible format
// characters (Unicode category Cf) that foldRune does not drop, though its
// comment promises "a strip of invisible format characters": bidi
// embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069, tag
// characters U+E0020–U+E007F, Mongolian vowel separator U+180E, Arabic
// letter mark U+061C. A server that strips Cf (as it strips U+200B, which
// the echo check does fold) quotes the phrase whole.
func TestReview61gEchoCfNotFolded(t *testing.T) {
	for _, cf := range []struct{ name, r string }{
		{"U+2066 LRI", "\u2066"}, {"U+202A LRE", "\u202a"}, {"U+202E RLO", "\u202e"},
		{"U+E0020 tag space", "\U000E0020"}, {"U+180E MVS", "\u180e"}, {"U+061C ALM", "\u061c"},
	} {
		// The client's text carries the phrase cut by the invisible
		// character; the upstream quotes it with that character stripped.
		echo56(t, 503, "rate "+cf.r+"limited", `{"error":{"message":"Internal error while handling: rate limited"}}`, ServerError)
		echo56(t, 400, "官方"+cf.r+"限速", `{"error":{"message":"参数错误: 官方限速"}}`, Unknown)
		echo56(t, 400, "account "+cf.r+"suspended", `{"error":{"message":"invalid input: account suspended"}}`, Unknown)
		if t.Failed() {
			t.Logf("(%s)", cf.name)
		}
	}
}

// Controls: transformations the echo check does undo.
func TestReview61gEchoTransformsHeld(t *testing.T) {
	// zero-width stripped, fullwidth NFKC'd, ideographic space split.
	echo56(t, 400, "官方\u200b限速", `{"error":{"message":"参数错误: 官方限速"}}`, Unknown)
	echo56(t, 503, "ｒａｔｅ ｌｉｍｉｔｅｄ", `{"error":{"message":"Internal error while handling: rate limited"}}`, ServerError)
	echo56(t, 503, "rate\u3000limited", `{"error":{"message":"Internal error while handling: rate limited"}}`, ServerError)
	// Half-width katakana and a fullwidth BAN, NFKC'd by the server.
	echo56(t, 400, "ﾕｰｻﾞｰはＢＡＮされています", `{"error":{"message":"invalid input: ユーザーはBANされています"}}`, Unknown)
	// Hangul sent decomposed (NFD jamo), composed by the server.
	echo56(t, 400, "\u1109\u1161\u110b\u116d\u11bc\u110c\u1161\u1100\u1161 \u110e\u1161\u1103\u1161\u11ab\u1103\u116c\u110b\u1165\u11bb\u1109\u1173\u11b8\u1102\u1175\u1103\u1161", `{"error":{"message":"invalid input: 사용자가 차단되었습니다"}}`, Unknown)
	// JSON-escaped in the request, raw in the answer and the reverse.
	echo56(t, 400, `\u65e0\u6743\u8bbf\u95ee`, `{"error":{"message":"参数错误: 无权访问"}}`, Unknown)
	echo56(t, 400, "无权访问", `{"error":{"message":"\u53c2\u6570\u9519\u8bef: \u65e0\u6743\u8bbf\u95ee"}}`, Unknown)
}

// (3) The routing rule read any top-level "provider" member, whatever it
// said, as the client's choice: only preferences that narrow the providers
// do (members.go, routingPrefs.restricts).
func TestReview61gRoutingMemberThatRestrictsNothing(t *testing.T) {
	none := `{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`
	zdr := `{"error":{"message":"No endpoints found matching your data policy (Zero data retention). Configure: https://openrouter.ai/settings/privacy","code":404}}`
	for name, req := range map[string]string{
		"provider null":         `{"model":"m","messages":[],"provider":null}`,
		"provider {}":           `{"model":"m","messages":[],"provider":{}}`,
		"provider sort: price":  `{"model":"m","messages":[],"provider":{"sort":"price"}}`,
		"provider allow all":    `{"model":"m","messages":[],"provider":{"allow_fallbacks":true,"data_collection":"allow"}}`,
		"provider_options junk": `{"model":"m","messages":[],"provider_options":"x"}`,
	} {
		if v := classify56(404, none, req, false); v.Class == BadRequest {
			t.Errorf("%s: OpenRouter's account-level 'no allowed providers' read %s (%s): the member restricts nothing", name, v.Class, v.Evidence)
		}
		if v := classify56(404, zdr, req, false); v.Class == BadRequest {
			t.Errorf("%s: the account's privacy settings read %s (%s): the member restricts nothing", name, v.Class, v.Evidence)
		}
	}
}

// (4) No crash: the new phrases cut inside a character, mixed with bytes
// that are no UTF-8, at every status family, in JSON, plain text and SSE,
// with the same bytes in the request.
func TestReview61gNewPhrasesInvalidUTF8NoPanic(t *testing.T) {
	phrases := []string{"频率超过限制", "頻率超過限制", "官方限速", "リクエスト制限に達しました", "요청 수 제한에 도달했습니다",
		"使用者已被封禁", "사용자가 차단되었습니다", "ユーザーはBANされています", "api key 无效", "无权使用", "允许访问的列表", "指定网段",
		"餘額不足", "积分不足", "quota insuffisant", "account suspended", "rate limited", "사용 가능한 채널이 없습니다",
		"倍率または価格が設定されていません", "模型名字错误", "已下线", "負荷が飽和", "부하가 포화 상태", "no allowed providers are available", "data policy"}
	rng := rand.New(rand.NewSource(61))
	junk := []string{"\xff", "\xc3", "\xe4\xb8", "\xf0\x9f\x98", "\xed\xa0\x80", "\\u", "\\ud800", "\\", "\"", "\x00", "\u200b", "\ufeff"}
	mutate := func(p string) string {
		b := []byte(p)
		var out []byte
		for i := 0; i < len(b); i++ {
			if rng.Intn(4) == 0 {
				out = append(out, junk[rng.Intn(len(junk))]...)
			}
			if rng.Intn(9) != 0 {
				out = append(out, b[i])
			}
		}
		return string(out)
	}
	statuses := []int{200, 400, 401, 402, 403, 404, 408, 409, 413, 422, 424, 429, 500, 502, 503, 529}
	for iter := 0; iter < 4000; iter++ {
		p := mutate(phrases[rng.Intn(len(phrases))])
		q := mutate(phrases[rng.Intn(len(phrases))])
		st := statuses[rng.Intn(len(statuses))]
		bodies := []string{
			`{"error":{"message":"` + p + ` ` + q + `","code":"` + q + `"}}`,
			p + "\n" + q,
			`{"error":{"message":"` + strings.Repeat(p, 50) + `"}}`,
		}
		req := `{"model":"m","provider":{"only":["` + q + `"]},"messages":[{"role":"user","content":"` + p + `"}]}`
		for _, b := range bodies {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panic %v on status %d body %q req %q", r, st, b, req)
					}
				}()
				Classify(Response{Status: st, Body: []byte(b), Request: []byte(req), Model: "m"})
				Classify(Response{Status: 200, Body: []byte("data: " + b + "\n\n"), Request: []byte(req), Model: "m", Stream: true})
				Echoed([]byte(req), p)
			}()
		}
	}
}
