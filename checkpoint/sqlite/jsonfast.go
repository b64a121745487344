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

// appendRelQuoted appends relVersion(v, id) between quotes, for a plain v.
func appendRelQuoted(b []byte, v, id string) []byte {
	b = append(b, '"')
	switch {
	case len(v) >= len(id) && v[:len(id)] == id && (len(v) == len(id) || v[len(id)] == '.'):
		b = append(b, '=')
		b = append(b, v[len(id):]...)
	case len(v) > 0 && v[0] == '=':
		b = append(b, '=')
		b = append(b, v...)
	default:
		b = append(b, v...)
	}
	return append(b, '"')
}

// encodeVersions returns the versions column: a JSON object from channel
// to version, keys in order, as json.Marshal writes it ("{}" for nil).
func encodeVersions(v map[string]string) ([]byte, error) {
	b, _, err := encodeColumns(v, nil, checkpoint.Metadata{}, false)
	return b, err
}

// encodeMetadata returns the metadata column, as json.Marshal writes md.
func encodeMetadata(md checkpoint.Metadata) ([]byte, error) {
	if n, ok := metadataSize(md); ok {
		return appendMetadata(make([]byte, 0, n), md), nil
	}
	return json.Marshal(md)
}

// encodeColumns returns the versions column for v, relative to *relTo
// when relTo is set (relVersion), and, with withMD, the metadata column
// for md: in one allocation when both take the fast path.
func encodeColumns(v map[string]string, relTo *string, md checkpoint.Metadata, withMD bool) (versions, meta []byte, err error) {
	mdSize, mdFast := 0, false
	if withMD {
		mdSize, mdFast = metadataSize(md)
	}
	defer func() {
		if withMD && err == nil && meta == nil {
			meta, err = json.Marshal(md)
		}
	}()
	if v == nil {
		if mdFast {
			return []byte("{}"), appendMetadata(make([]byte, 0, mdSize), md), nil
		}
		return []byte("{}"), nil, nil
	}
	var stack [16]string
	keys := stack[:0]
	n := 2
	stored := func(val string) string {
		if relTo != nil {
			return relVersion(val, *relTo)
		}
		return val
	}
	for k, val := range v {
		if !plainJSON(k) || !plainJSON(val) {
			if relTo != nil {
				rv := make(map[string]string, len(v))
				for k, val := range v {
					rv[k] = stored(val)
				}
				versions, err = json.Marshal(rv)
			} else {
				versions, err = json.Marshal(v)
			}
			if err == nil && mdFast {
				meta = appendMetadata(make([]byte, 0, mdSize), md)
			}
			return versions, meta, err
		}
		keys = append(keys, k)
		n += len(k) + len(val) + 7
	}
	slices.Sort(keys)
	if !mdFast {
		mdSize = 0
	}
	b := make([]byte, 0, n+mdSize)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuoted(b, k)
		b = append(b, ':')
		if relTo != nil {
			b = appendRelQuoted(b, v[k], *relTo)
		} else {
			b = appendQuoted(b, v[k])
		}
	}
	b = append(b, '}')
	versions = b[:len(b):len(b)]
	if mdFast {
		meta = appendMetadata(b[len(b):len(b)], md)
	}
	return versions, meta, nil
}

// metadataSize returns an upper bound of the size of md's column as
// appendMetadata writes it, and false when md needs json.Marshal.
func metadataSize(md checkpoint.Metadata) (int, bool) {
	if md.Extra != nil || len(md.Parents) > 1 || !plainJSON(string(md.Source)) || !plainJSON(md.RunID) {
		return 0, false
	}
	// {"source":"","step":-9223372036854775808,"parents":{},"run_id":"","nodes":[]}
	n := 80 + len(md.Source) + len(md.RunID)
	for k, v := range md.Parents {
		if !plainJSON(k) || !plainJSON(v) {
			return 0, false
		}
		n += len(k) + len(v) + 5
	}
	for _, node := range md.Nodes {
		if !plainJSON(node) {
			return 0, false
		}
		n += len(node) + 3
	}
	return n, true
}

// appendMetadata appends md's column, for md that metadataSize accepts.
func appendMetadata(b []byte, md checkpoint.Metadata) []byte {
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
	return append(b, '}')
}
