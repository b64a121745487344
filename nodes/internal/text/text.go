package text

import (
	"bytes"
	"encoding/json"
)

// Truncate returns s cut to n runes, with "…" appended when it was cut.
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// CompactJSON encodes v as compact JSON without HTML escaping, so "<", ">"
// and "&" in a step's input reach a tool as written.
func CompactJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
