// Package openai is the adapter for OpenAI-compatible upstreams (OpenAI,
// Azure OpenAI's v1 API, OpenRouter, Groq, Together, DeepSeek, Mistral, xAI,
// vLLM, Ollama…): requests pass through with only "model" replaced (in a
// door's translation, not a chat client's own body, a tool description over
// Chat Completions' 1024 characters is also cut, its full text moved to a
// system message: describe.go; and its output limit is named max_tokens for
// a server that is not OpenAI's: openai.go), answers and stream chunks pass through as
// the upstream sent them. Embeddings
// (embed.go, provider.Embedder) go to {base_url}/embeddings the same way.
//
// It imports provider and sse, nothing else of ours.
package openai
