package sqlite

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/stategraph/stategraph/checkpoint"
)

// castagnoli is the CRC-32C table: blob data and write values are stored
// with their checksum, so that a damaged row is reported as ErrCorrupt
// rather than handed to the deserializer.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) int64 { return int64(crc32.Checksum(b, castagnoli)) }

// encodeTime stores t as Unix nanoseconds; the zero time is 0.
func encodeTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// decodeTime is the inverse of encodeTime, in UTC.
func decodeTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// encodeVersions returns the versions column: a JSON object from channel
// to version.
func encodeVersions(v map[string]string) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(v)
}

// decodeVersions parses the versions column. It never panics.
func decodeVersions(b []byte) (map[string]string, error) {
	var v map[string]string
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("versions: %w", err)
	}
	if v == nil {
		return nil, fmt.Errorf("versions: %q is not a JSON object", b)
	}
	return v, nil
}

// decodeMetadata parses the metadata column. It never panics.
func decodeMetadata(b []byte) (checkpoint.Metadata, error) {
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
