package gemini

import (
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// imagePart translates an image_url part: a data: URL inline, another URL
// as file data.
func imagePart(p chat.Part) (part, error) {
	if p.ImageURL == nil || p.ImageURL.URL == "" {
		return part{}, provider.Refuse("image_url.url", "gemini: image_url part without url")
	}
	u := p.ImageURL.URL
	if mt, data, ok := chat.DataURL(u); ok {
		// Gemini answers an inline image of another type with 400
		// INVALID_ARGUMENT ("MIME type must be image/png, image/jpeg,
		// image/webp, image/heic, or image/heif"), which ends a route's
		// walk; OpenAI and Anthropic take a GIF. Not sending it lets the
		// route move on (docs/doors.md, "Chat Completions to Claude and
		// Gemini targets").
		lower := strings.ToLower(mt)
		switch lower {
		case "image/png", "image/jpeg", "image/webp", "image/heic", "image/heif":
		default:
			return part{}, provider.Refuse("", "gemini: image type %q: Gemini takes image/png, image/jpeg, image/webp, image/heic and image/heif", mt)
		}
		return part{InlineData: &blob{MimeType: lower, Data: data}}, nil
	}
	return part{FileData: &fileData{MimeType: imageType(u), FileURI: u}}, nil
}

// audioTypes are Gemini's MIME types for Chat Completions' input_audio
// formats.
var audioTypes = map[string]string{"wav": "audio/wav", "mp3": "audio/mp3"}

// mediaPart translates a file part holding an inline PDF, or an
// input_audio part, to inline data, as Gemini reads documents and audio
// (docs/doors.md, "Chat Completions to Claude and Gemini targets").
func mediaPart(p chat.Part) (part, error) {
	if p.Type == "input_audio" {
		a := p.InputAudio
		if a == nil || a.Data == "" || audioTypes[a.Format] == "" {
			return part{}, provider.Refuse("input_audio", `gemini: input_audio part: want data and a format of "wav" or "mp3"`)
		}
		return part{InlineData: &blob{MimeType: audioTypes[a.Format], Data: a.Data}}, nil
	}
	if _, _, ok := p.TextFile(); ok {
		// A text file goes as plain text, which Gemini reads as text
		// ("you can also pass non-PDF documents in the same way, but
		// Gemini will see them as normal text"; probe 52b).
		_, data, _ := chat.DataURL(p.File.FileData)
		return part{InlineData: &blob{MimeType: "text/plain", Data: data}}, nil
	}
	data, _, ok := p.PDF()
	if !ok {
		return part{}, provider.Refuse("", "gemini: file part: Gemini is sent an inline PDF or text file (file_data data:application/pdf;base64,… or data:text/plain;base64,…) only")
	}
	return part{InlineData: &blob{MimeType: "application/pdf", Data: data}}, nil
}

// toolImages is the images of a tool message (its text is the function
// response).
func toolImages(m *chat.Message) ([]part, error) {
	ps, err := m.Parts()
	if err != nil {
		return nil, err
	}
	var out []part
	for k, p := range ps {
		if p.Type == "image_url" {
			ip, err := imagePart(p)
			if err != nil {
				return nil, provider.At(fmt.Sprintf("content[%d]", k), err)
			}
			out = append(out, ip)
		}
	}
	return out, nil
}

// imageType guesses an image URL's MIME type from its extension.
func imageType(u string) string {
	p := u
	if pu, err := url.Parse(u); err == nil {
		p = pu.Path
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".png":
		return "image/png"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".heic":
		return "image/heic"
	case ".heif":
		return "image/heif"
	}
	return "image/jpeg"
}
