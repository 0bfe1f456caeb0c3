package gemini

import (
	"flag"
	"io"
	"os"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/signkey"
)

var update = flag.Bool("update", false, "rewrite stream golden files")

var testEP = provider.Endpoint{BaseURL: "http://upstream.invalid", APIKey: "AIza-test", Model: "gemini-2.5-flash", Signing: signkey.New([]byte("golden-signing-key"))}

func TestMain(m *testing.M) {
	now = func() time.Time { return time.Unix(1767225600, 0) }
	newID = func() string { return "chatcmpl-test" }
	newCallPrefix = func() string { return "" }
	os.Exit(m.Run())
}

// testStream is the adapter's stream of body at testEP.
func testStream(body io.Reader) provider.Stream { return Adapter{}.Stream(body, testEP) }

func TestTranslateGolden(t *testing.T) {
	adaptertest.Golden(t, "request", func(t testing.TB, f adaptertest.Fixture) ([]byte, error) {
		return Translate(adaptertest.ClientRequest(t, f.In))
	})
}

func TestResponseGolden(t *testing.T) {
	adaptertest.Golden(t, "response", func(_ testing.TB, f adaptertest.Fixture) ([]byte, error) {
		return Adapter{}.Response(f.Upstream, testEP)
	})
}

// TestStreamGolden feeds published SSE transcripts (testdata/stream/*.sse,
// each citing its source in an SSE comment) and compares the translated
// event sequence with *.want.jsonl, one event per line; -update rewrites
// those files.
func TestStreamGolden(t *testing.T) {
	adaptertest.GoldenStreams(t, "testdata/stream/*.sse", testStream, *update)
}
