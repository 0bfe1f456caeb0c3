package messages

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// ImageTokens is what Estimate counts for one image: Anthropic's documented
// cost is about width×height/750 tokens, and images are scaled to at most
// about 1.15 megapixels, so 1600 is the ceiling of one image. The door does
// not decode images to measure them.
const ImageTokens = 1600

// Estimate is the answer to POST /v1/messages/count_tokens for a target
// that is not Anthropic (Anthropic targets count exactly). It is an
// estimate, not a tokenizer: one token per 4 bytes (rounded up) of the
// text the model reads — system text, text and thinking blocks, tool_use
// inputs, tool_result texts, and each tool's name, description and
// input_schema (in tools, or defined by value in a system message's
// tool_addition) — plus ImageTokens per image. It over-counts code and
// under-counts some non-Latin scripts; it counts nothing for message
// framing. max_tokens is not required, as count_tokens does not take it.
func Estimate(body []byte) (int, error) {
	var in inRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return 0, decodeError("", err)
	}
	return estimate(&in)
}

// estimate is Estimate of a request already decoded.
func estimate(in *inRequest) (int, error) {
	n, images := 0, 0
	if rawjson.Set(in.System) {
		s, err := system(in.System)
		if err != nil {
			return 0, err
		}
		n += len(s)
	}
	for i := range in.Messages {
		blocks, s, err := content(fmt.Sprintf("messages.%d.content", i), in.Messages[i].Content)
		if err != nil {
			return 0, err
		}
		n += len(s)
		bn, bi, err := countBlocks(blocks, 0)
		if err != nil {
			return 0, err
		}
		n, images = n+bn, images+bi
	}
	for _, t := range in.Tools {
		n += len(t.Name) + len(t.Description) + len(t.InputSchema)
	}
	return (n+3)/4 + images*ImageTokens, nil
}

// countBlocks sums the text bytes and images of blocks; depth bounds the
// nesting of tool results.
func countBlocks(blocks []inBlock, depth int) (n, images int, err error) {
	for i := range blocks {
		b := &blocks[i]
		if b.Text != nil {
			n += len(*b.Text)
		}
		switch b.Type {
		case "image":
			images++
		case "document": // a plain-text one's text; a PDF's pages are not counted
			if s := b.Source; s != nil && s.Type == "text" {
				n += len(s.Data) + len(b.Title)
			}
		case "search_result": // its title, source and passages, as the translation sends them (probe 55a)
			if s, err := searchResult("", b); err == nil {
				n += len(s)
			}
		case "tool_use":
			n += len(b.Input)
		case "tool_addition":
			n += definedToolBytes(b.Tool)
		case "thinking":
			if b.Thinking != nil {
				n += len(*b.Thinking)
			}
		case "tool_result":
			if depth > 0 || !rawjson.Set(b.Content) {
				continue
			}
			inner, s, err := content("tool_result.content", b.Content)
			if err != nil {
				return 0, 0, err
			}
			n += len(s)
			in, im, err := countBlocks(inner, depth+1)
			if err != nil {
				return 0, 0, err
			}
			n, images = n+in, images+im
		}
	}
	return n, images, nil
}

// definedToolBytes is what a tool_addition's definition by value adds to
// the estimate, as a tool in tools does: its name, description and
// input_schema. A reference adds nothing (the tool it names is in tools,
// counted there), nor does a block the estimate cannot read: the door's
// translation judges it.
func definedToolBytes(raw json.RawMessage) int {
	var t inToolTarget
	if !rawjson.Set(raw) || json.Unmarshal(raw, &t) != nil || t.Type != "tool_definition" {
		return 0
	}
	var def inTool
	if json.Unmarshal(t.Definition, &def) != nil {
		return 0
	}
	return len(def.Name) + len(def.Description) + len(def.InputSchema)
}

// CountTokensBody is the count_tokens answer: {"input_tokens":n}.
func CountTokensBody(n int) []byte {
	return append(strconv.AppendInt([]byte(`{"input_tokens":`), int64(n), 10), '}')
}
