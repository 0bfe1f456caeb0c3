package config

import (
	"strings"
	"testing"
)

// Review 32k. 967c0f0 made PlainName lower-case only, so every
// unknown key with a capital letter is now named "of N characters (not
// shown)". The commonest key typo of an operator who comes from another
// gateway or SDK is exactly that: camelCase (baseURL, apiKey, maxTokens —
// LiteLLM's and the OpenAI SDKs' spellings) or a capitalised key. None is
// a secret shape (short, letters only), yet the error no longer says which
// key is wrong; before 967c0f0 it did.
func TestCamelCaseKeyTypoIsNamed_review32k(t *testing.T) {
	for _, key := range []string{"baseURL", "apiKey", "Name"} {
		yml := "providers:\n  - {name: p, dialect: openai, base_url: \"https://x.test\", " + key + ": v}\n" +
			"targets:\n  - {name: t1, model: m, providers: [p]}\n"
		_, err := Parse("detour.yaml", []byte(yml), func(string) (string, bool) { return "", false })
		if err == nil {
			t.Fatalf("%s: no error", key)
		}
		if !strings.Contains(err.Error(), `"`+key+`"`) {
			t.Errorf("unknown key %q is not named:\n%v", key, err)
		}
	}
}
