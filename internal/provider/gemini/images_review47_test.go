package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Gemini takes inline images of five types (Google's image understanding
// page lists image/png, image/jpeg, image/webp, image/heic, image/heif for
// every Gemini model: https://docs.cloud.google.com/vertex-ai/docs/generative-ai/image/image-captioning;
// a GIF refused by Gemini 2.0: https://discuss.ai.google.dev/t/gemini-2-api-returns-invalid-parameter-error-for-gif-inputs/71468),
// and it answers any other
// with 400 INVALID_ARGUMENT "…inline_data.mime_type: MIME type must be
// image/png, image/jpeg, image/webp, image/heic, or image/heif." (quoted in
// EvanZhouDev/gemini-ai#3), a bad_request that ends the route's walk. A GIF,
// which OpenAI and Anthropic both take, is then a request this dialect
// cannot express: a translation error, so the attempt is unknown with
// evidence translate and the route moves on (docs/behaviour.md), nothing
// sent (client review 46). In a user turn and in a tool message alike.
func TestC47bInlineImageTypesGeminiRefuses(t *testing.T) {
	for _, mt := range []string{"image/gif", "image/GIF", "image/bmp", "image/tiff", "image/svg+xml", "image/avif", "application/octet-stream"} {
		for name, messages := range map[string]string{
			"user": `[{"role":"user","content":[{"type":"text","text":"What is in this image?"},{"type":"image_url","image_url":{"url":"data:` + mt + `;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"}}]}]`,
			"tool": `[{"role":"user","content":"Take a screenshot."},{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"screenshot","arguments":"{}"}}]},` +
				`{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"done"},{"type":"image_url","image_url":{"url":"data:` + mt + `;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"}}]}]`,
		} {
			out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":`+messages+`}`)))
			if err == nil {
				t.Errorf("%s %s: sent %s, want a translation error", name, mt, out)
			} else if !strings.Contains(err.Error(), mt) {
				t.Errorf("%s %s: error %q does not name the type", name, mt, err)
			}
		}
	}
}

// The five types Gemini takes are sent, labelled in lower case (media types
// are case-insensitive, RFC 2045 §5.1; Gemini's list is lower case); the
// label image/jpg is image/jpeg (chat.DataURL).
func TestC47bInlineImageTypesGeminiTakes(t *testing.T) {
	for in, want := range map[string]string{
		"image/png": "image/png", "image/jpeg": "image/jpeg", "image/webp": "image/webp", "image/heic": "image/heic",
		"image/heif": "image/heif", "image/jpg": "image/jpeg", "IMAGE/PNG": "image/png", "image/Jpeg": "image/jpeg",
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:`+in+`;base64,iVBORw0KGgo="}}]}]}`)))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		adaptertest.SameJSON(t, out, []byte(`{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"`+want+`","data":"iVBORw0KGgo="}}]}]}`))
	}
}
