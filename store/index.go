package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Embedder turns texts into vectors. It is the method set of langchaingo's
// embeddings.Embedder, so any langchaingo embedder (OpenAI, Ollama,
// Vertex, ...) is an Embedder.
type Embedder interface {
	// EmbedDocuments returns one vector per text, in order.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector of a search query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Index configures semantic search: which texts of a value are embedded,
// and by what.
type Index struct {
	// Embedder embeds the texts. Required.
	Embedder Embedder
	// Dims, if set, is the length every vector must have; a vector of
	// another length is an error naming the item (or the query).
	Dims int
	// Fields are the paths of the texts to embed in each value: "$" (the
	// default) is the whole value as JSON; "title" a field; "doc.title" a
	// nested field; "tags[*]" every element of an array, "tags[0]" the
	// first and "tags[-1]" the last. A string is embedded as it is,
	// anything else as its JSON text. A path with no text in a value is
	// skipped.
	Fields []string
}

// fields returns the paths to embed, "$" by default.
func (ix *Index) fields() []string {
	if len(ix.Fields) == 0 {
		return []string{"$"}
	}
	return ix.Fields
}

// texts returns the texts at path in value, in order.
func texts(value map[string]any, path string) ([]string, error) {
	if path == "$" {
		b, err := json.Marshal(value)
		return []string{string(b)}, err
	}
	cur := []any{value}
	for _, tok := range strings.Split(path, ".") {
		name, sel, hasSel := strings.Cut(tok, "[")
		var next []any
		for _, c := range cur {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			if v, ok := m[name]; ok {
				next = append(next, v)
			}
		}
		if hasSel {
			sel, ok := strings.CutSuffix(sel, "]")
			if !ok {
				return nil, fmt.Errorf("store: index field %q: unclosed [", path)
			}
			var picked []any
			for _, c := range next {
				arr, ok := c.([]any)
				if !ok {
					continue
				}
				if sel == "*" {
					picked = append(picked, arr...)
					continue
				}
				i, err := strconv.Atoi(sel)
				if err != nil {
					return nil, fmt.Errorf("store: index field %q: %q is neither * nor an index", path, sel)
				}
				if i < 0 {
					i += len(arr)
				}
				if i >= 0 && i < len(arr) {
					picked = append(picked, arr[i])
				}
			}
			next = picked
		}
		cur = next
	}
	out := make([]string, 0, len(cur))
	for _, v := range cur {
		if s, ok := v.(string); ok {
			out = append(out, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	return out, nil
}

// cosine returns the cosine similarity of a and b (0 when either is the
// zero vector).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// EncodeVector returns v as the bytes a Driver stores: each component as
// a little-endian IEEE 754 float32, 4 bytes each.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector is the inverse of EncodeVector.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("store: a vector of %d bytes (not a multiple of 4)", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
