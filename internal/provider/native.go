package provider

import (
	"context"
	"io"
	"net/http"
)

// The client APIs an adapter may serve natively (NativeRequest.API).
const (
	// APIMessages is Anthropic's Messages API (POST /v1/messages).
	APIMessages = "messages"
	// APICountTokens is Anthropic's POST /v1/messages/count_tokens.
	APICountTokens = "count_tokens"
	// APIResponses is OpenAI's Responses API (POST /v1/responses).
	APIResponses = "responses"
	// APICompletions is OpenAI's legacy Completions API (POST
	// /v1/completions): a prompt, not messages. It has no canonical
	// translation; only an upstream that serves it is sent it.
	APICompletions = "completions"
	// APIGenerateContent is Google's Gemini API, generateContent and
	// streamGenerateContent (POST /v1beta/models/{model}:generateContent):
	// its body names no model (the URL does).
	APIGenerateContent = "generate_content"
	// APIGeminiCountTokens is Gemini's POST /v1beta/models/{model}:countTokens.
	APIGeminiCountTokens = "gemini_count_tokens"
)

// NativeRequest is a client request in a client API other than Chat
// Completions, to be sent to an upstream that serves that API as is.
type NativeRequest struct {
	// API names the client API (APIMessages, APICountTokens, APIResponses,
	// APICompletions, APIGenerateContent, APIGeminiCountTokens).
	API string
	// Body is the client's JSON as sent, fitted by the adapter to its
	// target: "model" replaced (a Gemini body names none: the adapter puts
	// the model in the URL, and a countTokens generateContentRequest's
	// model is the target's), members a Claude model refuses fitted, the
	// thought signatures this gateway sealed unsealed (NativeDecoder).
	Body []byte
	// Header holds the client's headers the API forwards (anthropic-version,
	// anthropic-beta); never credentials. Nil when none.
	Header http.Header
	// Stream is the client's "stream" flag.
	Stream bool
}

// Native is implemented by an adapter that can send some client APIs to its
// upstream as the client sent them, and read the answers in that API's own
// shape (docs/doors.md, "Passthrough").
type Native interface {
	// Serves reports whether the adapter serves api natively.
	Serves(api string) bool
	// NativeRequest builds the upstream HTTP request for req at ep: the
	// client's body with only "model" replaced by ep.Model, to the API's
	// own path.
	NativeRequest(ctx context.Context, ep Endpoint, req *NativeRequest) (*http.Request, error)
	// NativeAnswer checks a complete 2xx answer in api's shape and returns
	// its usage (nil when it reports none). An error means the body is
	// unusable (the caller files it as server_error).
	NativeAnswer(api string, body []byte) (*Usage, error)
	// NativeStream reads the upstream's event stream of api: each Event's
	// Chunks is its raw data alone (what the client gets, as is), and
	// Content, Done, Finished, Error and Usage are read as for a
	// translated stream.
	NativeStream(api string, body io.Reader, ep Endpoint) Stream
}

// NativeDecoder is a Native side whose NativeRequest may decode the
// client's body whole to build the request (Gemini's unsealing of the
// thought signatures this gateway sealed): NativeDecodes reports whether
// it will for body. The dispatcher then builds the request as it builds a
// translation: within a reservation of its cost from the request-body
// allowance, off the handler's stack (hostile 69g: it was counted by
// nothing).
type NativeDecoder interface {
	NativeDecodes(api string, body []byte) bool
}

// NativeOf returns a's Native side when it serves api, else nil.
func NativeOf(a Adapter, api string) Native {
	if n, ok := a.(Native); ok && api != "" && n.Serves(api) {
		return n
	}
	return nil
}
