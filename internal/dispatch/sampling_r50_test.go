package dispatch

import (
	"net/url"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
)

// vllmFilePath400 is vLLM's message for a file:// URL outside
// --allowed-local-media-path: the client's path, decoded, quoted whole
// ("The file path {filepath} must be a subpath of
// `--allowed-local-media-path` {allowed}.", vLLM multimodal/utils.py
// MediaConnector._load_file_url; the same code in
// PygmalionAI/aphrodite-engine aphrodite/multimodal/utils.py; e2e
// vllmFileURL).
func vllmFilePath400(path string) string {
	return "The file path " + path + " must be a subpath of `--allowed-local-media-path` /srv/media."
}

// scanLike runs refusedMember as samplingRefusal does: every member sent,
// the echo check classify.Echoed over req; it counts the checks.
func scanLike(req []byte, msg string) (string, int) {
	checks := 0
	got := refusedMember("", msg, func(string) bool { return true }, func(words string) bool {
		checks++
		return classify.Echoed(req, words)
	})
	return got, checks
}

// TestRefusedMemberEchoedFileName_r50: an echo still steers the resend.
// quoted looks for the client's words two blanks away from the member;
// where the member sits inside a word (a file name: ".../temperature.png")
// each side then takes in the upstream's own word beside that one ("path
// /home/…/temperature", "temperature.png must"), which the client never
// sent: a client's image named temperature.png (seed.png, stop.png …) at a
// vLLM endpoint reads as the model refusing its temperature, which is
// dropped and the request sent again.
func TestRefusedMemberEchoedFileName_r50(t *testing.T) {
	path := "/home/alice/Pictures/temperature.png"
	u := (&url.URL{Scheme: "file", Path: path}).String()
	req := []byte(`{"model":"r","temperature":0.2,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`)
	if got, _ := scanLike(req, vllmFilePath400(path)); got != "" {
		t.Errorf("dropped %q on the client's own file name", got)
	}
}

// TestRefusedMemberScanBounded_r50: since hostile 50 the word scan goes on
// past every member whose neighbours the client sent, and each costs up to
// two echo checks, each a read of the whole request. The message is read
// from the first 4 KiB of the body (classify.MaxBody): a path of
// "x temperature " runs holds some 270 members, every one echoed. A
// request of max_body_bytes (8 MiB, the default) with the URL at its end
// then costs hundreds of reads of 8 MiB for one failed attempt — per
// attempt of any Messages or Responses door request at an openai-dialect
// endpoint that sets temperature. Before 32cdc7e the scan stopped at the
// first member.
func TestRefusedMemberScanBounded_r50(t *testing.T) {
	path := "/" + strings.Repeat("x temperature ", 270) + "x.png"
	msg := vllmFilePath400(path)
	if len(msg)+len(`{"object":"error","message":"","type":"BadRequestError","param":null,"code":400}`) > classify.MaxBody {
		t.Fatalf("body past what is read (%d-byte message)", len(msg))
	}
	u := (&url.URL{Scheme: "file", Path: path}).String()
	req := []byte(`{"model":"r","temperature":0.2,"messages":[{"role":"user","content":"` +
		strings.Repeat("lorem ipsum dolor sit amet ", 8<<20/27-400) + `"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`)
	got, checks := scanLike(req, msg)
	if checks > 3 { // counted, not timed: the suite never times a unit test
		t.Errorf("one 400's word scan made %d reads of the %d-byte request (%q), want at most 3", checks, len(req), got)
	}
}

// TestRefusedMemberRealRefusalBesideCommonWords_r50: the other way round,
// a real refusal whose words beside the member the client's prompt also
// holds ("what `top_p` is" beside NVIDIA's "`top_p` is immutable …") reads
// as the client's words quoted back. Review r50 asked for the resend here;
// review r50b showed a client's file name ("red stop sign.jpg") needs the
// one-word window that makes this so. The client's text is never evidence:
// its setting is kept and the 400 is its answer, as before round 48.
func TestRefusedMemberRealRefusalBesideCommonWords_r50(t *testing.T) {
	req := []byte(`{"model":"r","top_p":1,"messages":[{"role":"user","content":"In one line: what ` + "`top_p`" + ` is, and how it differs from temperature?"}]}`)
	if got, _ := scanLike(req, "Validation: `top_p` is immutable for this model and must be 0.95, got 1"); got != "" {
		t.Errorf("refused member %q: the words beside it are the client's too", got)
	}
	other := []byte(`{"model":"r","top_p":1,"messages":[{"role":"user","content":"hello"}]}`)
	if got, _ := scanLike(other, "Validation: `top_p` is immutable for this model and must be 0.95, got 1"); got != "top_p" {
		t.Errorf("refused member %q, want top_p", got)
	}
}
