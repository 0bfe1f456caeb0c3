package classify

import "testing"

// Review 30e. docs/behaviour.md (unknown): a content part this model does
// not take, in llama.cpp's words ("Failed to parse messages: Unsupported
// content part type: \"image_url\"", a 500 too) is unknown: another target
// serves it, and the endpoint is not cooled. messagesDump reads the reason
// only when "; messages = <dump>" follows it; llama.cpp's server no longer
// writes that dump (common/chat.cpp: "@ngxson : disable otherwise it's
// bloating the API response": throw std::runtime_error("Failed to parse
// messages: " + std::string(e.what()))), so the same answer from a current
// llama-server is cut at the lead's colon and stays server_error: one
// client's image to a text-only model cools the endpoint.
func TestLlamaCppContentPartTypeWithoutDump(t *testing.T) {
	image := `{"model":"llama-4-scout","messages":[{"role":"user","content":[{"type":"text","text":"desc this pic?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo"}}]}]}`
	runHostile(t, []hostileCase{
		{name: "current llama.cpp (no dump), a 500", status: 500,
			body: `{"error":{"code":500,"message":"Failed to parse messages: Unsupported content part type: \"image_url\"","type":"server_error"}}`,
			req:  image, model: "llama-4-scout", want: Unknown},
	})
}
