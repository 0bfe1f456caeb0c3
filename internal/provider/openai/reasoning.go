package openai

import (
	"bytes"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Reasoning handed back (docs/doors.md, "OpenAI Responses": reasoning
// items). The doors give an assistant turn the reasoning_content an
// OpenAI-compatible model wrote, which DeepSeek's and Kimi's thinking
// modes require back in a tool loop. Other servers refuse the member:
// Cerebras ("property 'messages.2.assistant.reasoning_content' is
// unsupported", Kilo-Org/kilocode#10375), Mistral (422 "Extra inputs are
// not permitted"), so a translation sends it only where it is read
// (probe 53c, hostile 53b: a Codex loop on Cerebras's gpt-oss, and a
// failover from DeepSeek to Mistral, ended in a 400 for a member the
// client never sent).

// wantsReasoning reports whether an endpoint reads reasoning_content back:
// DeepSeek's and Moonshot's APIs, and a DeepSeek or Kimi model served
// elsewhere (vLLM, SGLang, OpenRouter), but not by a host known to refuse
// members it does not know.
func wantsReasoning(h, model string) bool {
	switch {
	case h == "api.deepseek.com" || strings.HasSuffix(h, ".moonshot.ai") || strings.HasSuffix(h, ".moonshot.cn"):
		return true
	case strings.HasSuffix(h, "cerebras.ai") || strings.HasSuffix(h, "groq.com") || strings.HasSuffix(h, "mistral.ai") ||
		h == "api.openai.com" || strings.HasSuffix(h, ".openai.azure.com"):
		return false
	}
	// Azure AI Foundry (*.services.ai.azure.com) serves DeepSeek and Kimi
	// models too, and takes their reasoning back (review 53): the model
	// name decides there, as elsewhere.
	m := strings.ToLower(model)
	return strings.Contains(m, "deepseek") || strings.Contains(m, "kimi")
}

// A tool-call turn another model wrote (a failover into DeepSeek's
// thinking mode: Claude or Gemini answered the step before) has no
// reasoning to give back, and DeepSeek refuses the next step without the
// member ("The reasoning_content in the thinking mode must be passed back
// to the API", a 400; https://api-docs.deepseek.com/guides/thinking_mode,
// "Tool Calls"): every coding agent's loop that failed over into it ended
// there (probe 56a: Kilo Code through the chat, Messages and Responses
// doors). Such a turn gets a one-space reasoning_content, as LiteLLM and
// sub2api fill it (Wei-Shaw/sub2api#7313): not "", which OpenRouter's
// DeepSeek refuses as missing (BerriAI/litellm#27439).
const reasoningPlaceholder = `" "`

// withReasoningOnToolCalls gives each assistant turn with tool_calls and
// no reasoning_content one: the reasoning a client hands back under
// OpenRouter's name (a string "reasoning": the Agents SDK's chat model
// and OpenRouter's clients write it so, probe 56b), else the placeholder.
// At OpenRouter itself (openRouter), which reads its own names and
// forwards them as the model's, a turn with reasoning or
// reasoning_details is left as it is (hostile 56b); anywhere else those
// names are not read (review 56b: DeepSeek got no reasoning_content).
// body itself when none lacks it.
func withReasoningOnToolCalls(body []byte, openRouter bool) []byte {
	if !bytes.Contains(body, []byte(`"tool_calls"`)) {
		return body
	}
	return eachItem(body, "messages", func(m []byte) []byte {
		if r, ok := rawjson.String(rawjson.Member(m, "role")); !ok || r != "assistant" ||
			!rawjson.Set(rawjson.Member(m, "tool_calls")) || rawjson.Set(rawjson.Member(m, "reasoning_content")) ||
			openRouter && (rawjson.Set(rawjson.Member(m, "reasoning")) || rawjson.Set(rawjson.Member(m, "reasoning_details"))) {
			return m
		}
		if rc := rawjson.Member(m, "reasoning_content"); rc != nil { // "reasoning_content": null
			m = rawjson.Without(m, "reasoning_content")
		}
		value := []byte(reasoningPlaceholder)
		if text, ok := rawjson.String(rawjson.Member(m, "reasoning")); ok && text != "" {
			value = rawjson.Member(m, "reasoning") // the client's own, as it wrote it
		}
		return rawjson.WithLast(m, "reasoning_content", value)
	})
}

// withoutReasoning is a translated body with no message's
// reasoning_content; body itself when none has one.
func withoutReasoning(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"reasoning_content"`)) {
		return body
	}
	return eachItem(body, "messages", func(m []byte) []byte { return rawjson.Without(m, "reasoning_content") })
}

// withoutForeignReasoning is a Responses body for OpenAI's own API whose
// input holds no reasoning item with content and no encrypted_content:
// such an item is one this gateway wrote for an OpenAI-compatible model's
// reasoning (its text in a reasoning_text part), which OpenAI's Responses
// API refuses ("array too long" for its content; hostile 53b: Codex on a
// route failing over from DeepSeek to a responses: true target) and could
// not read anyway. OpenAI's own items carry no content: stored ones (store
// left true) are sent back by id alone and kept (review 53). body itself
// when none is dropped.
func withoutForeignReasoning(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"reasoning_text"`)) {
		return body
	}
	return eachItem(body, "input", func(it []byte) []byte {
		if t, ok := rawjson.String(rawjson.Member(it, "type")); !ok || t != "reasoning" {
			return it
		}
		if e, ok := rawjson.String(rawjson.Member(it, "encrypted_content")); ok && e != "" {
			return it
		}
		if c := bytes.TrimSpace(rawjson.Member(it, "content")); rawjson.Set(c) && !bytes.Equal(c, []byte("[]")) {
			return nil
		}
		return it
	})
}

// eachItem rewrites the array under body's top-level member key, each
// element through fn (nil drops it); body itself when the member is not
// an array or nothing changed.
func eachItem(body []byte, key string, fn func([]byte) []byte) []byte {
	s, e, err := rawjson.MemberSpan(body, key)
	if err != nil || s < 0 {
		return body
	}
	sc, ok := rawjson.ScanArray(body[s:e])
	if !ok {
		return body
	}
	out := make([]byte, 0, e-s)
	out = append(out, '[')
	changed, n := false, 0
	for _, v, more := sc.Next(); more; _, v, more = sc.Next() {
		w := fn(v)
		// fn returns v itself when it changes nothing; a rewrite may keep
		// the length (hostile 54b: a placeholder as long as the tagged
		// signature it replaced was not sent).
		changed = changed || len(w) != len(v) || len(w) > 0 && &w[0] != &v[0]
		if w == nil {
			continue
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, w...)
		n++
	}
	if !changed {
		return body
	}
	return rawjson.Replace(body, s, e, append(out, ']'))
}

// Gemini's OpenAI-compatible endpoint (generativelanguage.googleapis.com's
// /v1beta/openai) writes a Gemini 3 tool call's thought signature as
// extra_content.google.thought_signature and refuses the next step without
// it ("Function call is missing a thought_signature in functionCall
// parts", a 400). The Messages and Responses doors have nowhere to keep
// it, so every tool loop they ran there failed at its second step
// (probe 53d). A translation's history calls without one get the
// placeholder Google documents for history Gemini did not write
// (https://ai.google.dev/gemini-api/docs/thought-signatures), as the
// gemini adapter sends it.

// skipSignature is Google's placeholder thought signature.
const skipSignature = `{"google":{"thought_signature":"skip_thought_signature_validator"}}`

// geminiCompat reports Gemini's OpenAI-compatible endpoint: a host of
// googleapis.com, or a base URL ending in /v1beta/openai.
func geminiCompat(host, path string) bool {
	return strings.HasSuffix(host, "googleapis.com") || strings.HasSuffix(strings.TrimSuffix(path, "/"), "/v1beta/openai")
}

// withSignatures gives each assistant tool call of a translated body that
// carries no extra_content the placeholder signature; body itself when
// none lacks one.
func withSignatures(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"tool_calls"`)) {
		return body
	}
	return eachItem(body, "messages", func(m []byte) []byte {
		if r, ok := rawjson.String(rawjson.Member(m, "role")); !ok || r != "assistant" {
			return m
		}
		return eachItem(m, "tool_calls", func(tc []byte) []byte {
			if rawjson.Set(rawjson.Member(tc, "extra_content")) {
				return tc
			}
			return rawjson.WithLast(tc, "extra_content", []byte(skipSignature))
		})
	})
}

// withoutOurSignatures is body whose tool calls carry no thought signature
// this gateway tagged for a Gemini endpoint of the gemini dialect
// (provider.SignaturePrefix), which a client hands back as it was given:
// Gemini's OpenAI-compatible endpoint would refuse it as no signature it
// wrote ("Corrupted thought signature"), so it gets the placeholder there;
// any other server gets no extra_content (OpenAI refuses members it does
// not know on some models: "Additional properties are not allowed",
// openai/openai-node#1161). body itself when none carries one.
func withoutOurSignatures(body []byte, compat bool) []byte {
	if !bytes.Contains(body, []byte(provider.SignaturePrefix)) {
		return body
	}
	return eachItem(body, "messages", func(m []byte) []byte {
		if r, ok := rawjson.String(rawjson.Member(m, "role")); !ok || r != "assistant" {
			return m
		}
		return eachItem(m, "tool_calls", func(tc []byte) []byte {
			if provider.TaggedSignature(rawjson.Member(tc, "extra_content")) == "" {
				return tc
			}
			tc = rawjson.Without(tc, "extra_content")
			if compat {
				tc = rawjson.WithLast(tc, "extra_content", []byte(skipSignature))
			}
			return tc
		})
	})
}

// withoutEncryptedReasoning is a Responses body with no reasoning item
// whose encrypted_content the server cannot decrypt: a Gemini call's
// thought signature this gateway sealed (docs/doors.md, "Gemini thought
// signatures") at any server, and at a server other than OpenAI's or
// Azure's own (openai false) every encrypted item, OpenAI's included,
// which Codex and the Agents SDK hand back each turn: vLLM refuses any
// encrypted_content outright ("Encrypted content is not supported",
// hostile 54c, review 54c), and the failover stopped there. body itself
// when none is dropped.
func withoutEncryptedReasoning(body []byte, openai bool) []byte {
	if !bytes.Contains(body, []byte(`"encrypted_content"`)) {
		return body
	}
	return eachItem(body, "input", func(it []byte) []byte {
		if t, ok := rawjson.String(rawjson.Member(it, "type")); !ok || t != "reasoning" {
			return it
		}
		e, ok := rawjson.String(rawjson.Member(it, "encrypted_content"))
		if ok && (strings.HasPrefix(e, provider.SignaturePrefix) || !openai && e != "") {
			return nil
		}
		return it
	})
}

// withoutReasoningReferences is a Responses body with no reference to a
// reasoning item ("rs_…"), which the Responses door drops rather than
// refuses (docs/doors.md): forwarded, it would name an item the server
// never stored (review 54c). body itself when none is dropped.
func withoutReasoningReferences(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"rs_`)) {
		return body
	}
	return eachItem(body, "input", func(it []byte) []byte {
		id, ok := rawjson.String(rawjson.Member(it, "id"))
		if !ok || !strings.HasPrefix(id, "rs_") {
			return it
		}
		typ := rawjson.Member(it, "type")
		if t, typed := rawjson.String(typ); typed && t == "item_reference" || !rawjson.Set(typ) && !rawjson.Set(rawjson.Member(it, "role")) {
			return nil
		}
		return it
	})
}
