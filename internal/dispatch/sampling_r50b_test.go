package dispatch

import (
	"net/url"
	"testing"
)

// TestRefusedMemberEchoOneWordEachSide_r50b: since a4bbda1, quoted counts an
// echo only when two whole words on one side of the member are the
// client's. A file name whose member word has one word of the client's on
// each side ("red stop sign.jpg", "room temperature chart.png") leaves
// the upstream's own word in both windows: vLLM's 400 for a file:// URL
// outside --allowed-local-media-path ("The file path {filepath} must be a
// subpath of …", review r50's vllmFilePath400) then reads as a refusal of
// the client's stop, which is dropped and the request sent again. Before
// a4bbda1 the one-word window "red stop" (and "stop sign.jpg") caught it.
func TestRefusedMemberEchoOneWordEachSide_r50b(t *testing.T) {
	for _, tc := range []struct{ path, member, value string }{
		{"/data/images/red stop sign.jpg", "stop", `["\n\nHuman:"]`},
		{"/home/alice/Pictures/room temperature chart.png", "temperature", "0.2"},
	} {
		u := (&url.URL{Scheme: "file", Path: tc.path}).String()
		req := []byte(`{"model":"r","` + tc.member + `":` + tc.value + `,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`)
		if got, _ := scanLike(req, vllmFilePath400(tc.path)); got != "" {
			t.Errorf("%s: dropped %q on the client's own file name", tc.path, got)
		}
	}
}
