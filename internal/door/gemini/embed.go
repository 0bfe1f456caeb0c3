package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Embeddings at the Gemini door (docs/doors.md, "Google Gemini"):
// :embedContent and :batchEmbedContents are translated into an OpenAI
// embeddings body ({model, input: [texts], dimensions}) for the
// embeddings dispatch /v1/embeddings uses, and its answer, an OpenAI
// embeddings list, back into Google's shape. Every target gets the
// translation: a Gemini target the batchEmbedContents its adapter makes of
// it (internal/provider/gemini/embed.go), an OpenAI-dialect one the body.
//
//	content.parts[].text        the input's text (several parts joined by "\n")
//	other parts                 refused (Detour embeds text)
//	outputDimensionality        dimensions (one value for the whole batch)
//	taskType, title             dropped (no OpenAI counterpart; not sent to
//	                            Gemini targets either)
//	requests[].model            must be the path's, models/{model}, as Google
//	                            requires
//	model (embedContent)        ignored: the path names the model

// MaxEmbedRequests is the most contents one request may hold: OpenAI's
// limit on one embeddings request's inputs (provider.MaxEmbeddingsInputs),
// which dispatch sends to a Gemini target 100 at a time. Google takes 100.
const MaxEmbedRequests = 2048

// embedBody is the OpenAI embeddings body the door writes.
type embedBody struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

// TranslateEmbed reads an EmbedContentRequest (batch false) or a
// BatchEmbedContentsRequest (batch true) for the route or target model
// (the path's) and returns the OpenAI embeddings body for it, its inputs
// in the order of the contents. Errors are *Error, the client's (400).
func TranslateEmbed(body []byte, model string, batch bool) ([]byte, error) {
	top, err := obj(body, "request")
	if err != nil {
		return nil, err
	}
	if top == nil {
		return nil, invalid("request", "must be a JSON object")
	}
	reqs := []object{top}
	if batch {
		if reqs, err = batchRequests(top, model); err != nil {
			return nil, err
		}
	}
	out := embedBody{Model: model, Input: make([]string, len(reqs))}
	dims, dimsAt := int64(0), ""
	for i, r := range reqs {
		where := "request"
		if batch {
			where = "requests[" + strconv.Itoa(i) + "]"
		}
		if out.Input[i], err = embedText(r, where); err != nil {
			return nil, err
		}
		for _, k := range []string{"taskType", "title"} {
			if _, err := r.str(k, where); err != nil {
				return nil, err
			}
		}
		n, err := r.integer("outputDimensionality", where)
		if err != nil {
			return nil, err
		}
		var d int64
		if n != nil {
			if *n <= 0 || *n > 1<<20 {
				return nil, invalid(where+".outputDimensionality", "must be a positive whole number")
			}
			d = *n
		}
		if i == 0 {
			dims, dimsAt = d, where
		} else if d != dims {
			return nil, invalid(where+".outputDimensionality", fmt.Sprintf("differs from %s's: Detour sends a batch as one request with one dimensions value; send one outputDimensionality for the whole batch", dimsAt))
		}
	}
	out.Dimensions = int(dims)
	b, err := json.Marshal(out)
	if err != nil {
		return nil, invalid("request", err.Error())
	}
	return b, nil
}

// batchRequests are a BatchEmbedContentsRequest's requests, each of which
// must name the path's model, models/{model}, as Google requires.
func batchRequests(top object, model string) ([]object, error) {
	list, err := top.list("requests", "request")
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, invalid("requests", "must be a non-empty list of EmbedContentRequest objects")
	}
	if len(list) > MaxEmbedRequests {
		return nil, invalid("requests", fmt.Sprintf("holds %d requests; Detour takes at most %d in one batch", len(list), MaxEmbedRequests))
	}
	want := "models/" + model
	reqs := make([]object, 0, len(list))
	for i, raw := range list {
		where := "requests[" + strconv.Itoa(i) + "]"
		r, err := obj(raw, where)
		if err != nil {
			return nil, err
		}
		if r == nil {
			return nil, invalid(where, "must be an EmbedContentRequest object")
		}
		// Google: "The model in each of these requests must match the
		// model specified BatchEmbedContentsRequest.model" (the path's).
		m, err := r.str("model", where)
		if err != nil {
			return nil, err
		}
		if m != want {
			return nil, invalid(where+".model", fmt.Sprintf("is %q; each request of a batch must name the model of the URL, %q", cut(m), want))
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// embedText is the text of r's content: its text parts, joined by "\n".
func embedText(r object, where string) (string, error) {
	c, err := obj(r["content"], where+".content")
	if err != nil {
		return "", err
	}
	if c == nil {
		return "", invalid(where+".content", "is required: a Content whose parts hold the text to embed")
	}
	parts, err := c.list("parts", where+".content")
	if err != nil {
		return "", err
	}
	texts := make([]string, 0, len(parts))
	for j, raw := range parts {
		pw := where + ".content.parts[" + strconv.Itoa(j) + "]"
		p, err := obj(raw, pw)
		if err != nil {
			return "", err
		}
		for k := range p {
			if k != "text" {
				return "", invalid(pw, fmt.Sprintf("holds %q: Detour embeds text parts only", cut(k)))
			}
		}
		t, err := p.str("text", pw)
		if err != nil {
			return "", err
		}
		if t != "" {
			texts = append(texts, t)
		}
	}
	if len(texts) == 0 {
		return "", invalid(where+".content", "has no text to embed")
	}
	return strings.Join(texts, "\n"), nil
}

// cut is s, at most 64 bytes of it, for an error message.
func cut(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// EmbedAnswer turns an OpenAI embeddings list (the dispatch's answer, its
// vectors lists of floats) into Google's answer: an EmbedContentResponse
// {"embedding":{"values":[…]}} (batch false, one vector) or a
// BatchEmbedContentsResponse {"embeddings":[{"values":[…]},…]} in the
// order of the requests.
func EmbedAnswer(list []byte, batch bool) ([]byte, error) {
	var in struct {
		Data []struct {
			Index     int             `json:"index"`
			Embedding json.RawMessage `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(list, &in); err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	type values struct {
		Values json.RawMessage `json:"values"`
	}
	out := make([]values, len(in.Data))
	for _, d := range in.Data {
		if d.Index < 0 || d.Index >= len(out) || out[d.Index].Values != nil {
			return nil, fmt.Errorf("embeddings: vector index %d out of place", d.Index)
		}
		if v := strings.TrimSpace(string(d.Embedding)); v == "" || v[0] != '[' {
			return nil, errors.New("embeddings: a vector is not a list of numbers")
		}
		out[d.Index].Values = d.Embedding
	}
	if !batch {
		if len(out) != 1 {
			return nil, fmt.Errorf("embeddings: %d vectors for one content", len(out))
		}
		return json.Marshal(map[string]values{"embedding": out[0]})
	}
	return json.Marshal(map[string][]values{"embeddings": out})
}
