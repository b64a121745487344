package inspect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/stategraph/stategraph/checkpoint"
)

// Values returns the state fields of a checkpoint read with Get, each as
// compact JSON with the keys of every object sorted, so the same value
// always prints the same (a saver such as PostgreSQL's jsonb may reorder
// keys): a field stored as a snapshot and deltas is the concatenation of
// the snapshot's elements and every delta's. A value that is not JSON (a
// custom Serializer) is shown as {"base64": "..."}. Reserved channels
// (checkpoint.IsReserved) are left out.
func Values(tup *checkpoint.Tuple) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(tup.Checkpoint.Values))
	for name, v := range tup.Checkpoint.Values {
		if checkpoint.IsReserved(name) {
			continue
		}
		raw, err := value(v)
		if err != nil {
			return nil, fmt.Errorf("checkpoint %q field %q: %w", tup.Config.CheckpointID, name, err)
		}
		out[name] = raw
	}
	return out, nil
}

// Fields returns the names of values, sorted.
func Fields(values map[string]json.RawMessage) []string {
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// value rebuilds one channel's value.
func value(v checkpoint.Value) (json.RawMessage, error) {
	if len(v.Deltas) == 0 {
		if len(v.Snapshot) == 0 {
			return json.RawMessage("null"), nil
		}
		if !json.Valid(v.Snapshot) {
			return opaque(v.Snapshot), nil
		}
		return canonical(v.Snapshot), nil
	}
	var elems []json.RawMessage
	if s := bytes.TrimSpace(v.Snapshot); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
		if err := json.Unmarshal(s, &elems); err != nil {
			return nil, fmt.Errorf("snapshot of an append field is not a JSON array: %w", err)
		}
	}
	for i, d := range v.Deltas {
		var more []json.RawMessage
		if s := bytes.TrimSpace(d); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
			if err := json.Unmarshal(s, &more); err != nil {
				return nil, fmt.Errorf("delta %d is not a JSON array: %w", i+1, err)
			}
		}
		elems = append(elems, more...)
	}
	if elems == nil {
		elems = []json.RawMessage{}
	}
	b, err := json.Marshal(elems)
	if err != nil {
		return nil, err
	}
	return canonical(b), nil
}

// canonical returns the JSON b compact, with the keys of every object
// sorted; numbers and strings keep their text (1.0 stays 1.0, "<" is not
// escaped). b that is not JSON is returned as it is.
func canonical(b []byte) json.RawMessage {
	v, ok := decode(b)
	if !ok {
		return json.RawMessage(b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return json.RawMessage(b)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// opaque wraps bytes that are not JSON.
func opaque(b []byte) json.RawMessage {
	out, _ := json.Marshal(map[string]string{"base64": base64.StdEncoding.EncodeToString(b)})
	return out
}
