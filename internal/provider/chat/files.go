package chat

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// PDF returns a file part's PDF as base64, with its name; ok is false for
// a part that is not an inline PDF (a file_id, another media type).
func (p Part) PDF() (data, name string, ok bool) {
	if p.Type != "file" || p.File == nil || p.File.FileID != "" {
		return "", "", false
	}
	mt, data, ok := DataURL(p.File.FileData)
	if !ok || !strings.EqualFold(mt, "application/pdf") {
		return "", "", false
	}
	return data, p.File.Filename, true
}

// TextFile returns a file part's inline text file (a data: URL of a text
// type, JSON, XML or YAML, as OpenAI's Responses API takes as input_file:
// plain text, Markdown, code), decoded, with its file name; ok is false
// for anything else, or data that is not base64 of UTF-8 text.
func (p Part) TextFile() (text, name string, ok bool) {
	if p.Type != "file" || p.File == nil || p.File.FileID != "" {
		return "", "", false
	}
	mt, data, ok := DataURL(p.File.FileData)
	if !ok || !TextType(mt) {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		// Not UTF-8 text: UTF-16 (its ASCII is half NULs, valid UTF-8 all
		// the same), Latin-1 past ASCII, a binary labelled text (hostile 52c).
		return "", "", false
	}
	return string(b), p.File.Filename, true
}

// TextType reports whether the media type mt is text a model reads as
// such: text/*, and data and code by their application/ names. A file
// part of such a type is sent decoded (TextFile).
func TextType(mt string) bool {
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch {
	case strings.HasPrefix(mt, "text/"):
		return true
	case strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"):
		return true
	}
	return textApplications[mt]
}

// textApplications are the application/ types of text files: data, and
// code as OpenAI lists the files input_file takes as text (.sh
// application/x-sh, .ts application/typescript) and as clients name them
// (mime-db's application/javascript; review 52b).
var textApplications = map[string]bool{
	"application/json": true, "application/xml": true, "application/x-yaml": true, "application/yaml": true,
	"application/x-sh": true, "application/typescript": true, "application/javascript": true,
	"application/x-javascript": true, "application/x-typescript": true, "application/x-python": true,
	"application/x-python-code": true, "application/sql": true, "application/toml": true, "application/x-tex": true,
}

// DataURL splits "data:<media type>;base64,<data>". ok is false for any
// other URL (including non-base64 data: URLs).
func DataURL(u string) (mediaType, data string, ok bool) {
	rest, found := strings.CutPrefix(u, "data:")
	if !found {
		return "", "", false
	}
	meta, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	mediaType, isB64 := strings.CutSuffix(meta, ";base64")
	if !isB64 {
		return "", "", false
	}
	if i := strings.IndexByte(mediaType, ';'); i >= 0 {
		mediaType = mediaType[:i]
	}
	// image/jpg and image/pjpeg are labels browsers, pasteboards and many
	// tools write for JPEG; Anthropic and Gemini take only image/jpeg and
	// refuse the request otherwise (docs/doors.md, "Chat Completions to Claude and Gemini targets").
	if strings.EqualFold(mediaType, "image/jpg") || strings.EqualFold(mediaType, "image/pjpeg") {
		mediaType = "image/jpeg"
	}
	return mediaType, data, true
}
