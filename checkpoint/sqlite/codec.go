package sqlite

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// The created_at column holds Unix nanoseconds as an INTEGER, 0 for the
// zero time, for every instant that this round-trips (years 1678 to 2262,
// the Unix epoch excepted). Other instants (the epoch, which 0 would read
// back as the zero time, and years outside that range, which overflow)
// are stored as TEXT in RFC 3339 form with nanoseconds, which SQLite keeps
// as text in an INTEGER column. Rows written before this read as before.

// encodeTime returns the created_at column for t.
func encodeTime(t time.Time) any {
	if t.IsZero() {
		return int64(0)
	}
	if n := t.UnixNano(); n != 0 && time.Unix(0, n).Equal(t) {
		return n
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// decodeTime is the inverse of encodeTime, in UTC. A value that is
// neither is an error.
func decodeTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case int64:
		if x == 0 {
			return time.Time{}, nil
		}
		return time.Unix(0, x).UTC(), nil
	case string:
		return parseTime(x)
	case []byte:
		return parseTime(string(x))
	}
	return time.Time{}, fmt.Errorf("created_at: %v (%T) is not a time", v, v)
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("created_at: %q is not a time", truncate([]byte(s)))
	}
	return t.UTC(), nil
}

// decodeVersions parses a versions column of absolute versions. It never
// panics.
func decodeVersions(b []byte) (map[string]string, error) { return decodeVersionsIn(b, nil, "", false) }

// decodeVersionsIn is decodeVersions of checkpoint id's column with its
// strings from in; rel says that the column is relative to id
// (relVersion).
func decodeVersionsIn(b []byte, in *interner, id string, rel bool) (map[string]string, error) {
	if v, ok := readVersions(b, in, id, rel); ok {
		return v, nil
	}
	return decodeVersionsJSON(b, id, rel)
}

// decodeVersionsJSON is decodeVersionsIn through encoding/json: the
// columns readVersions does not read by hand, and what says why one does
// not decode.
func decodeVersionsJSON(b []byte, id string, rel bool) (map[string]string, error) {
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	if v == nil {
		return nil, fmt.Errorf("versions: %q is not a JSON object", b)
	}
	if rel {
		for ch, s := range v {
			v[ch] = absVersion(s, id)
		}
	}
	return v, nil
}

// A row written since migration 6 stores its versions relative to its
// id: a version that belongs to the checkpoint (the id itself, or the id
// followed by "." and anything; see versionOwner), which is most of them
// (the runtime names what a step writes after the step's checkpoint),
// is stored as "=" and what follows the id, and a version that starts
// with "=" as "=" and the version; any other as it is. The row's crc
// kind says which rows are so (cpRelKind).

// relVersion returns version v of checkpoint id as a relative versions
// column stores it.
func relVersion(v, id string) string {
	switch {
	case len(v) >= len(id) && v[:len(id)] == id && (len(v) == len(id) || v[len(id)] == '.'):
		return "=" + v[len(id):]
	case len(v) > 0 && v[0] == '=':
		return "=" + v
	}
	return v
}

// absVersion is the inverse of relVersion.
func absVersion(s, id string) string {
	if len(s) == 0 || s[0] != '=' {
		return s
	}
	if rest := s[1:]; len(rest) > 0 && rest[0] == '=' {
		return rest
	}
	return id + s[1:]
}

// decodeMetadata parses the metadata column. It never panics.
func decodeMetadata(b []byte) (checkpoint.Metadata, error) { return decodeMetadataIn(b, nil) }

// decodeMetadataIn is decodeMetadata with its strings from in.
func decodeMetadataIn(b []byte, in *interner) (checkpoint.Metadata, error) {
	if md, ok := readMetadata(b, in); ok {
		return md, nil
	}
	var md checkpoint.Metadata
	if len(b) == 0 || b[0] != '{' {
		return md, fmt.Errorf("metadata: %q is not a JSON object", truncate(b))
	}
	if err := json.Unmarshal(b, &md); err != nil {
		return checkpoint.Metadata{}, fmt.Errorf("metadata: %w", err)
	}
	return md, nil
}

// truncate shortens b for an error message.
func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}

// seedsJSON returns the (channel, version) pairs as the JSON array that
// sqlChain takes.
func seedsJSON(pairs []blobKey) []byte {
	out := make([][2]string, len(pairs))
	for i, p := range pairs {
		out[i] = [2]string{p.channel, p.version}
	}
	b, _ := json.Marshal(out) // strings only: cannot fail
	return b
}

// idsJSON returns ids as a JSON array.
func idsJSON(ids []string) []byte {
	b, _ := json.Marshal(ids) // strings only: cannot fail
	return b
}
