package store

import (
	"context"
	"iter"
	"time"
)

// Record is an item as a Driver stores it: the namespace encoded (see
// EncodeNamespace), the value as JSON text, and the item's vectors.
type Record struct {
	// Namespace is the encoded namespace: its labels joined by ".".
	Namespace string
	Key       string
	// Value is the item's value, a JSON object.
	Value     []byte
	CreatedAt time.Time
	UpdatedAt time.Time
	// ExpiresAt is when the item expires; the zero time is never.
	ExpiresAt time.Time
	// TTL is the time to live the item was put with (0: none), which
	// Refresh adds to the time of a read.
	TTL time.Duration
	// Vectors are the embeddings of the item's indexed texts. On Put they
	// replace every vector the item had; Scan fills them only when asked.
	Vectors []Vector
}

// Expired reports whether the record has expired at now.
func (r *Record) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// Vector is the embedding of one text of an item: the Index field path it
// came from, its position among that path's texts (a path with "[*]"
// yields several), and the embedding.
type Vector struct {
	Field     string
	Seq       int
	Embedding []float32
}

// Ref names a record: its encoded namespace and its key.
type Ref struct{ Namespace, Key string }

// Driver is what a database provides to a Store. A Store validates its
// arguments, encodes namespaces and values, embeds texts, filters and
// ranks; a Driver only stores and reads records. Implementations must be
// safe for concurrent use.
type Driver interface {
	// Put stores rec, replacing the record of the same (namespace, key)
	// and all its vectors in one transaction. A record that replaces
	// another keeps the other's CreatedAt (unless that one expired). The
	// times follow the order the writes commit in, whatever the clocks
	// that stamped rec: inside its write, Put makes UpdatedAt at least a
	// microsecond after the replaced record's, so created_at <= updated_at
	// and the put that committed last has the latest time.
	Put(ctx context.Context, rec Record) error
	// Get returns the record of (namespace, key), or nil when there is
	// none or it has expired at now. Its Vectors are not filled.
	Get(ctx context.Context, namespace, key string, now time.Time) (*Record, error)
	// Delete removes the record of (namespace, key) and its vectors.
	// Deleting a missing record is not an error.
	Delete(ctx context.Context, namespace, key string) error
	// Scan yields the records not expired at now whose namespace is
	// prefix or starts with prefix + "." (every record for ""), most
	// recently updated first, then by namespace and key; with vectors,
	// each with its Vectors. The caller may stop early.
	Scan(ctx context.Context, prefix string, now time.Time, vectors bool) iter.Seq2[*Record, error]
	// Namespaces returns the distinct namespaces of the records not
	// expired at now, sorted.
	Namespaces(ctx context.Context, now time.Time) ([]string, error)
	// Refresh sets the expiry of each record of refs that has a TTL and
	// has not expired at now to now + its TTL.
	Refresh(ctx context.Context, refs []Ref, now time.Time) error
	// DeleteExpired deletes up to limit records expired at now, with
	// their vectors, and returns how many it deleted.
	DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error)
}
