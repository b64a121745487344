package storetest

import (
	"context"
	"hash/fnv"
	"strings"
	"sync"
	"unicode"
)

// Embedder is a deterministic store.Embedder for tests: a text's vector
// counts its lower-cased words, each word hashed (FNV-1a) to one of Dims
// components (256 when 0). Texts that share words are close; texts that
// share none are orthogonal, unless two of their words hash alike.
type Embedder struct {
	Dims int

	mu    sync.Mutex
	texts int
}

// EmbedDocuments implements store.Embedder.
func (e *Embedder) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.vector(t)
	}
	e.mu.Lock()
	e.texts += len(texts)
	e.mu.Unlock()
	return out, nil
}

// EmbedQuery implements store.Embedder.
func (e *Embedder) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.vector(text), nil
}

// Texts returns how many texts EmbedDocuments has embedded.
func (e *Embedder) Texts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

func (e *Embedder) vector(text string) []float32 {
	dims := e.Dims
	if dims <= 0 {
		dims = 256
	}
	v := make([]float32, dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	return v
}
