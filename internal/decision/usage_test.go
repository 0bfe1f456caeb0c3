package decision

import (
	"encoding/json"
	"testing"
)

// Usage known to be a lower bound says so: "incomplete": true, absent
// otherwise, so records without it read as before.
func TestUsageIncomplete(t *testing.T) {
	var u Usage
	u.Add(Usage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25})
	if b, _ := json.Marshal(u); string(b) != `{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25}` {
		t.Errorf("complete usage = %s", b)
	}
	u.Add(Usage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2, Incomplete: true})
	u.Add(Usage{PromptTokens: 1, TotalTokens: 1})
	if b, _ := json.Marshal(u); string(b) != `{"prompt_tokens":7,"completion_tokens":21,"total_tokens":28,"incomplete":true}` {
		t.Errorf("sum with a partial count = %s", b)
	}
	var old Usage
	if err := json.Unmarshal([]byte(`{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}`), &old); err != nil || old.Incomplete {
		t.Errorf("a record written before the field: %+v, %v", old, err)
	}
}
