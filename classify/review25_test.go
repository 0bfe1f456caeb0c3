package classify

import "testing"

// The fifth review of corpus round 22's rules (git diff a839bb9..0e33603
// -- classify/), looking for the opposite failure the earlier reviews did
// not: real provider answers that the new rules make stop the walk
// (bad_request, refusal, forbidden) where the provider or the model, not
// the request, is at fault, and where another endpoint or target would have
// served. Each test failed when it was written.

// TestReview25ZeroAllowanceStopsTheWalk: zeroAllowance (window.go) makes
// every Google quota answer whose limits are all 0 forbidden. Forbidden has
// no next endpoint and no next target (internal/policy: NextEndpoint false,
// DefaultNextTarget false) and never pages, so the walk stands still on an
// answer that is about this project's allowance, not about the request:
// a route of gemini-2.5-pro on an AI Studio key, then on Vertex, or then
// gpt-4o, now answers the client with an error instead of moving on. The
// rule's own premise ("other models on the key still serve") asks for a
// class that moves on; forbidden is not one.
//
// Sources: the corpus's own gemini-per-day-limit-zero-429 (relabelled
// forbidden in round 22), copied from davidlary/PortraitGenerator
// GOOGLE_API_QUOTA_ISSUE.md @1ec56dd: a PREPAID account whose calls to
// gemini-3-pro-image-preview succeeded all day (11:24 to 13:10) and then
// answered "limit: 0" for generate_requests_per_model_per_day on every
// call — the model had an allowance on that project until it was used up
// or the billing state changed: an account matter, which the original
// label (quota: moves on, pages) read right. And continuedev/continue
// #10066 (2026-01-31): "limit: 0, model: gemini-2.0-flash", a model with a
// free tier, on a key whose free tier is gone (google-gemini/gemini-cli
// #22486, "No free tier working at all", shows the same limit: 0 on every
// model of such a key); the message as the issue quotes it, in Google's
// documented envelope (its details were cut in the issue).
//
// Suggested fix: a zero allowance must move on. Read it as the endpoint's
// (unavailable: cools this endpoint, moves on) or keep quota where the
// metric is per day and names no other model; never forbidden.
func TestReview25ZeroAllowanceStopsTheWalk(t *testing.T) {
	gem := `{"contents":[{"role":"user","parts":[{"text":"Draw a portrait of Alan Turing"}]}]}`
	stop := []Class{Forbidden, BadRequest, Refusal}
	runHostile(t, []hostileCase{
		{name: "the corpus's per-day limit 0 on a prepaid project", status: 429,
			body: `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_requests_per_model_per_day, limit: 0","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_requests_per_model_per_day","quotaId":"GenerateRequestsPerDayPerProjectPerModel"}]}]}}`,
			req:  gem, model: "gemini-3-pro-image-preview", notAny: stop},
		{name: "a free-tier model at limit 0 on a key whose free tier is gone", status: 429,
			body: `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits. To monitor your current usage, head to: https://ai.dev/rate-limit. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.0-flash\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.0-flash\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 0, model: gemini-2.0-flash\nPlease retry in 7.967587226s.","status":"RESOURCE_EXHAUSTED"}}`,
			req:  gem, model: "gemini-2.0-flash", notAny: stop},
	})
}

// TestReview25TemplateExceptionIsNotAlwaysTheRequest: the 5xx phrase
// "raise_exception" (phrases5xx.go) makes every exception a model's chat
// template raises the client's bad input. But a template also raises for
// what the model cannot take — no tool role, no system role — which any
// other target serves: the same gap is "cannot use tools" / "does not
// support" (unknown) everywhere else. As bad_request the walk stops and
// the client is told not to retry a request a tool-capable target would
// have answered. (Before the rule it was server_error, which moved on.)
//
// Sources: containers/ramalama #2425 (2026-02-14), llama-server's 500 to
// goose's tool-calling conversation with mistral:7b, verbatim from the
// issue's "srv operator(): got exception:" line ("Only user, system and
// assistant roles are supported!": the template has no tool role). Gemma
// 2's template raises "System role not supported" for any system message
// (google's tokenizer_config.json; the error reported from SGLang
// sgl-project/sglang #892 and #1342, LM Studio, llama-cpp-python #1580);
// here in llama-server's shape for a template exception, as the ramalama
// and sipeed/picoclaw #207 bodies show it.
//
// Suggested fix: raise_exception alone proves only that the template
// refused the conversation; read it unknown (moves on, cools nothing), and
// keep bad_request for the wordings that say the request itself is
// malformed (roles must alternate, as taught).
func TestReview25TemplateExceptionIsNotAlwaysTheRequest(t *testing.T) {
	tools := `{"model":"mistral:7b","messages":[{"role":"user","content":"edit main.go"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"package main"}],"tools":[{"type":"function","function":{"name":"read_file","parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}]}`
	sys := `{"model":"gemma-2-9b-it","messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a template without a tool role", status: 500,
			body: `{"error":{"code":500,"message":"\n------------\nWhile executing CallExpression at line 43, column 28 in source:\n... {%- else %}↵ {{- raise_exception('Only user, system and assistant roles ...\n ^\nError: Jinja Exception: Only user, system and assistant roles are supported!","type":"server_error"}}`,
			req:  tools, model: "mistral:7b", want: Unknown},
		{name: "a template without a system role", status: 500,
			body: `{"error":{"code":500,"message":"\n------------\nWhile executing CallExpression at line 3, column 8 in source:\n...'system' -%}↵    {{- raise_exception('System role not supported') -}}↵{%- endif...\n       ^\nError: Jinja Exception: System role not supported","type":"server_error"}}`,
			req:  sys, model: "gemma-2-9b-it", want: Unknown},
	})
}

// TestReview25GRPCInvalidArgumentWrapsEverything: the 5xx phrase "code =
// invalidargument" (phrases5xx.go, for LocalAI's relayed gRPC code) comes
// before every other 5xx phrase, but LocalAI's llama.cpp backend returns
// INVALID_ARGUMENT for ANY exception while it parses a chat request
// (backend/cpp/llama-cpp/grpc-server.cpp, PredictStream and Predict:
// `catch (const std::exception & e) { return
// grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, e.what()); }` around
// oaicompat_chat_params_parse and process_mtmd_prompt), and from LoadModel
// for its own configuration. LocalAI answers err.Error() as a 500
// (core/http/app.go: schema.ErrorResponse{Message, Code}). So:
//   - a text-only model without its projector ("image input is not
//     supported - hint: if this is unexpected, you may need to provide the
//     mmproj", llama.cpp's words): unknown from llama-server itself, and was
//     unknown here before the rule; now bad_request, and an image request
//     stops at the first text-only endpoint instead of reaching a vision
//     target;
//   - an image the server cannot decode ("Failed to load image or audio
//     file", which llama-server also says of every image when ffprobe is
//     missing): the project's own rule says unknown in a 5xx; wrapped, it
//     is bad_request;
//   - the server's own configuration refused at load (LoadModel: "Score
//     requires the unified KV cache; remove kv_unified:false or remove score
//     from known_usecases", wrapped by pkg/model/initializers.go "could not
//     load model: %w" and pkg/model/loader.go "failed to load model with
//     internal loader: %s"): the endpoint is broken for everyone, yet every
//     client is told its request is wrong, the walk stops, nothing cools.
//
// Sources: mudler/LocalAI @82c191a (the files named above); the messages
// are the source's strings in LocalAI's error envelope.
//
// Suggested fix: the gRPC code is the transport's, not evidence: read
// "code = InvalidArgument desc = X" as X (its desc), and only where X says
// nothing let the code make it bad_request; never over a load failure.
func TestReview25GRPCInvalidArgumentWrapsEverything(t *testing.T) {
	img := `{"model":"qwen2.5-7b-instruct","messages":[{"role":"user","content":[{"type":"text","text":"What is in this picture?"},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA="}}]}]}`
	chat := `{"model":"qwen2.5-7b-instruct","messages":[{"role":"user","content":"hi"}]}`
	localai := func(msg string) string {
		return `{"error":{"code":500,"message":"` + msg + `","type":""}}`
	}
	runHostile(t, []hostileCase{
		{name: "a text-only model without its projector", status: 500,
			body: localai("rpc error: code = InvalidArgument desc = image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"),
			req:  img, model: "qwen2.5-7b-instruct", want: Unknown},
		{name: "an image the server cannot decode", status: 500,
			body: localai("rpc error: code = InvalidArgument desc = Failed to load image or audio file"),
			req:  img, model: "qwen2.5-7b-instruct", want: Unknown},
		{name: "the server's own configuration refused at load", status: 500,
			body: localai("failed to load model with internal loader: could not load model: rpc error: code = InvalidArgument desc = Score requires the unified KV cache; remove kv_unified:false or remove score from known_usecases"),
			req:  chat, model: "qwen2.5-7b-instruct", want: ServerError},
	})
}
