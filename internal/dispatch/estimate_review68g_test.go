package dispatch

import (
	"strings"
	"testing"
)

// TestReview68gEscapedSlashImageIsOneImage: PHP's json_encode writes every
// '/' as "\/" unless told not to, so openai-php and other PHP clients send
// an inline image's base64 with escaped slashes. Read as text (any escape
// did), a 1.4 MB image was estimated at ~360,000 tokens, not one image's
// 1,600: a budgeted key whose answer never reported its usage was charged
// for them.
func TestReview68gEscapedSlashImageIsOneImage(t *testing.T) {
	data := strings.ReplaceAll(strings.Repeat("iVBORw0KGgo/AAAANSUhEUg+A", 60000), "/", `\/`)
	body := []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image\/png","data":"` +
		data + `"}},{"type":"text","text":"what is this?"}]}]}`)
	if n := inputEstimate(body); n > 2*imageTokens {
		t.Errorf("an image with escaped slashes estimated at %d tokens, want about one image's %d", n, imageTokens)
	}
	// Other escapes are text's: a long run broken by "\n" is counted.
	text := []byte(`{"messages":[{"role":"user","content":"` + strings.Repeat(`abcdefgh\n`, 15000) + `"}]}`)
	if n := inputEstimate(text); n < 30000 {
		t.Errorf("150,000 bytes of text with line breaks estimated at %d tokens", n)
	}
}
