package classify

import "testing"

// TestEchoReadsInvalidUTF8AsReplacement: a Go upstream (encoding/json) writes an invalid UTF-8 byte of the
// client's text as \ufffd; the client's request holds the raw byte. A gap
// phrase whose gap holds it is then not found in the request.
func TestEchoReadsInvalidUTF8AsReplacement(t *testing.T) {
	req := []byte("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"out of \xff quota\"}]}")
	body := []byte(`{"error":{"message":"invalid content: out of \ufffd quota"}}`)
	v := Classify(Response{Status: 400, Body: body, Request: req})
	if v.Class == Quota {
		t.Errorf("client text decided: %s (%s)", v.Class, v.Evidence)
	}
}
