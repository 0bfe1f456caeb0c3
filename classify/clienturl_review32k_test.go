package classify

import "testing"

// Review 32k. urlTail (967c0f0) accepts the rest of the client's URL
// after a '?' only when no byte of it decodes (reqByte) to a blank — and
// reqByte decodes the URL's own "%XX". A presigned S3 URL asking for a
// download name (`response-content-disposition=attachment%3B%20filename%3D…`,
// boto3's generate_presigned_url with ResponseContentDisposition), or any
// query holding an encoded space ("%20"), is therefore "prose after a URL":
// a fetcher that prints the URL without its query ("Failed to download
// file from https://bucket…/img.png: 401 Unauthorized") has the client's
// own expired link read as the provider's key — auth: the account cools
// and the operator is paged. Same for a query value with a non-ASCII
// character that the client's JSON encoder escapes (Python json.dumps:
// "\u00e9").
func TestClientURLWithEncodedBlankInQueryIsTheClients_review32k(t *testing.T) {
	const path = "https://bucket.s3.amazonaws.com/uploads/img.png"
	body := `{"error":{"message":"Failed to download file from ` + path + `: 401 Unauthorized. Please re-authenticate."}}`
	var cases []hostileCase
	for name, q := range map[string]string{
		"control: no blank":          `?X-Amz-Expires=3600\u0026X-Amz-Signature=abc`,
		"S3 content-disposition %20": `?response-content-disposition=attachment%3B%20filename%3Dimg.png\u0026X-Amz-Expires=3600\u0026X-Amz-Signature=abc`,
		"query value é (json.dumps)": `?name=caf\u00e9\u0026sig=abc`,
	} {
		cases = append(cases, hostileCase{name: name, status: 400, body: body, req: img32a(path + q), model: "m", notAny: []Class{Auth}})
	}
	runHostile(t, cases)
}

// Review 32k. wholeValue only starts a candidate at `"http`, `"HTTP`,
// `"\u` or `"%`: a client URL whose scheme is written in mixed case
// ("Https://", as an iOS keyboard capitalises a pasted link) is not found
// although urlAt compares case aside, and the client's host's 401 is auth.
func TestMixedCaseSchemeClientURLIsTheClients_review32k(t *testing.T) {
	body := `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`
	runHostile(t, []hostileCase{
		{name: "Https", status: 400, body: body, req: img32a(`Https://files.example.com/share/1abc`), model: "m", notAny: []Class{Auth}},
	})
}
