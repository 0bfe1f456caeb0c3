package classify

import "testing"

// Review 32a: client text that comes back transformed, or a status that
// belongs to a resource the client named.
func img32a(u string) string {
	return `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`
}

// TestEscapedClientURLIsTheClients: namesClientURL/wholeValue compare the
// answer's URL with the request's raw bytes ("\/" and "\u0026" aside).
// The client may write its URL with any JSON escape, which every upstream
// decodes before it fetches and quotes it, or with a percent-encoded
// unreserved byte, which Python's requests decodes in the URL it prints
// (requote_uri): the notClient rule no longer sees the client's URL and
// its own host's 401 becomes the provider account's auth (cooled, paged).
func TestEscapedClientURLIsTheClients(t *testing.T) {
	reauth := `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`
	var cases []hostileCase
	for _, st := range []int{400, 500} {
		for name, u := range map[string]string{
			`\u0068ttps`:        `\u0068ttps://files.example.com/share/1abc`,
			`\u002f`:            `https:\u002f\u002ffiles.example.com\u002fshare\u002f1abc`,
			`%31 (requests)`:    `https://files.example.com/share/%31abc`,
			`\u0066iles (host)`: `https://\u0066iles.example.com/share/1abc`,
		} {
			cases = append(cases, hostileCase{name: name + " at " + itoa32a(st), status: st, body: reauth, req: img32a(u), model: "m", notAny: []Class{Auth}})
		}
	}
	runHostile(t, cases)
}

// TestClientResourceStatusIsNotTheProviders: a server that downloads the
// client's URL and fails quotes the status the CLIENT'S host answered.
// requests' HTTPError text ("401 Client Error: Unauthorized for url: …",
// requests/models.py raise_for_status; vllm/utils/mm_utils.py and many
// OpenAI-compatible servers' load_image call it) opens with "NNN Capital"
// and is read as a relayed status in a 5xx (relay.go sdkStatusLead), and
// the reason phrases ("Payment Required", "Too Many Requests") are read as
// the provider's in any status. The URL is a whole value of the request.
func TestClientResourceStatusIsNotTheProviders(t *testing.T) {
	const u = "https://img.example.com/cat.png"
	req := img32a(u)
	reqs := func(code, reason string) string {
		return `{"error":{"message":"` + code + ` Client Error: ` + reason + ` for url: ` + u + `","type":"InternalServerError","param":null,"code":null}}`
	}
	runHostile(t, []hostileCase{
		{name: "requests 401, 500", status: 500, body: reqs("401", "Unauthorized"), req: req, model: "m", notAny: []Class{Auth}},
		{name: "requests 401, FastAPI detail, 500", status: 500, body: `{"detail":"401 Client Error: Unauthorized for url: ` + u + `"}`, req: req, model: "m", notAny: []Class{Auth}},
		{name: "requests 401, plain text, 502", status: 502, body: `401 Client Error: Unauthorized for url: ` + u, req: req, model: "m", notAny: []Class{Auth}},
		{name: "requests 402, 500", status: 500, body: reqs("402", "Payment Required"), req: req, model: "m", notAny: []Class{Quota}},
		{name: "requests 403, 500", status: 500, body: reqs("403", "Forbidden"), req: req, model: "m", notAny: []Class{Forbidden}},
		{name: "requests 429, 500", status: 500, body: reqs("429", "Too Many Requests"), req: req, model: "m", notAny: []Class{RateLimited}},
		{name: "requests 429, 400", status: 400, body: reqs("429", "Too Many Requests"), req: req, model: "m", notAny: []Class{RateLimited}},
		{name: "download failed 402, 400", status: 400, body: `{"error":{"message":"Failed to download ` + u + `: 402 Payment Required"}}`, req: req, model: "m", notAny: []Class{Quota}},
		{name: "download failed 429, 400", status: 400, body: `{"error":{"message":"Failed to download ` + u + `: 429 Too Many Requests"}}`, req: req, model: "m", notAny: []Class{RateLimited}},
		// Controls that hold today and must keep holding: a relay's own call
		// to its provider (a URL the client never sent) is the provider's.
		{name: "control: the relay's own provider URL", status: 500, body: `{"detail":"401 Client Error: Unauthorized for url: https://api.openai.com/v1/chat/completions"}`, req: req, model: "m", want: Auth},
	})
}

// TestPercentDecodedFileNameIsTheClients: echoedInURL tries the client's
// blanks as %20 and +, but an upstream that names the file it could not
// download decodes every %XX ("Timeout while downloading
// 20250503_162129.jpg." in the corpus): "insufficient%20balanc%65.jpg"
// comes back as "insufficient balance.jpg". OpenAI's own answer carries
// invalid_image_url and is bad_request; a relay's or a 5xx without the
// code is quota. MECHANISM ONLY (the 5xx wrapping is not from a cited
// vendor).
func TestPercentDecodedFileNameIsTheClients(t *testing.T) {
	body := `{"error":{"message":"Timeout while downloading insufficient balance.jpg.","type":"server_error","param":null,"code":null}}`
	runHostile(t, []hostileCase{
		{name: "%65 for e, 500", status: 500, body: body, req: img32a("https://slow.example/insufficient%20balanc%65.jpg"), model: "m", notAny: []Class{Quota}},
		{name: "%69 for i, 400", status: 400, body: `{"error":{"message":"Timeout while downloading insufficient balance.jpg."}}`, req: img32a("https://slow.example/%69nsufficient%20balance.jpg"), model: "m", notAny: []Class{Quota}},
	})
}

func itoa32a(n int) string {
	b := []byte{}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
