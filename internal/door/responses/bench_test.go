package responses

import "testing"

// BenchmarkTranslate is one request translation (the function-call round
// trip example).
func BenchmarkTranslate(b *testing.B) {
	body := []byte(translateCases[4].in)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Translate(body); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromCompletion is one whole-answer translation.
func BenchmarkFromCompletion(b *testing.B) {
	body := []byte(chatExample)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromCompletion(body, nil, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamChunk is one text-delta chunk through an open stream.
func BenchmarkStreamChunk(b *testing.B) {
	s := NewStream(nil, "m", 1)
	if _, err := s.Chunk([]byte(openAIChunks[1])); err != nil {
		b.Fatal(err)
	}
	chunk := []byte(openAIChunks[2])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Chunk(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
