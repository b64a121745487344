package sqlite

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
)

// The checkpoint row's JSON columns are written by hand when that gives
// the bytes json.Marshal would: for strings that need no escaping (json
// escapes <, > and & too), and metadata without Extra. Anything else goes
// through json.Marshal. A step of the runtime is the fast case; it saves
// the encoder's reflection and sorting, a dozen allocations a Put.

// plainJSON reports whether s is written by json.Marshal as itself
// between quotes.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// encodeVersions returns the versions column: a JSON object from channel
// to version, keys in order, as json.Marshal writes it ("{}" for nil).
func encodeVersions(v map[string]string) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	var stack [16]string
	keys := stack[:0]
	n := 2
	for k, val := range v {
		if !plainJSON(k) || !plainJSON(val) {
			return json.Marshal(v)
		}
		keys = append(keys, k)
		n += len(k) + len(val) + 6
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, k)
		b = append(b, ':')
		b = appendQuoted(b, v[k])
	}
	return append(b, '}'), nil
}

// encodeMetadata returns the metadata column, as json.Marshal writes md.
func encodeMetadata(md checkpoint.Metadata) ([]byte, error) {
	if md.Extra != nil || len(md.Parents) > 1 || !plainJSON(string(md.Source)) || !plainJSON(md.RunID) {
		return json.Marshal(md)
	}
	n := 40 + len(md.Source) + len(md.RunID)
	for k, v := range md.Parents {
		if !plainJSON(k) || !plainJSON(v) {
			return json.Marshal(md)
		}
		n += len(k) + len(v) + 20
	}
	for _, node := range md.Nodes {
		if !plainJSON(node) {
			return json.Marshal(md)
		}
		n += len(node) + 3
	}
	b := make([]byte, 0, n)
	b = append(b, `{"source":`...)
	b = appendQuoted(b, string(md.Source))
	b = append(b, `,"step":`...)
	b = strconv.AppendInt(b, int64(md.Step), 10)
	if len(md.Parents) > 0 {
		b = append(b, `,"parents":{`...)
		for k, v := range md.Parents { // one entry
			b = appendQuoted(b, k)
			b = append(b, ':')
			b = appendQuoted(b, v)
		}
		b = append(b, '}')
	}
	if md.RunID != "" {
		b = append(b, `,"run_id":`...)
		b = appendQuoted(b, md.RunID)
	}
	if len(md.Nodes) > 0 {
		b = append(b, `,"nodes":[`...)
		for i, node := range md.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendQuoted(b, node)
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}
