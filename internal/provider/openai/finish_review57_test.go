package openai

import (
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// TestReview57EscapedVendorFinishRewritten: scanChoice leaves an escaped
// finish_reason to decode ("decode reads what it says"), and decode marks
// the choice vendor (sensitive), but openaiFinishes compares the raw bytes,
// so the chunk relayed still holds the vendor's word: the scan and decode
// paths disagree about what reaches the client.
func TestReview57EscapedVendorFinishRewritten(t *testing.T) {
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"sensitiv\\u0065\"}]}\n\ndata: [DONE]\n\n"
	st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
	var relayed strings.Builder
	for {
		ev, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ev.Chunks {
			relayed.Write(c)
			relayed.WriteByte('\n')
		}
	}
	if !strings.Contains(relayed.String(), `"finish_reason":"content_filter"`) {
		t.Errorf("the vendor's finish word (escaped) reached the client unchanged:\n%s", relayed.String())
	}
}
