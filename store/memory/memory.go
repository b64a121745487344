package memory

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stategraph/stategraph/store"
)

// Driver is an in-memory store.Driver. The zero value is not usable; call
// NewDriver.
type Driver struct {
	mu    sync.RWMutex
	items map[itemKey]*store.Record // records are immutable once stored
}

type itemKey struct{ ns, key string }

var _ store.Driver = (*Driver)(nil)

// NewDriver returns an empty Driver.
func NewDriver() *Driver { return &Driver{items: map[itemKey]*store.Record{}} }

// New returns a Store over a new, empty Driver. It fails only on an
// invalid option (an Index without an Embedder).
func New(opts ...store.Option) (*store.Store, error) { return store.New(NewDriver(), opts...) }

// Put implements store.Driver.
func (d *Driver) Put(ctx context.Context, rec store.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rec.Value = slices.Clone(rec.Value)
	rec.Vectors = slices.Clone(rec.Vectors)
	d.mu.Lock()
	defer d.mu.Unlock()
	k := itemKey{rec.Namespace, rec.Key}
	if old, ok := d.items[k]; ok {
		// The times follow the order of the writes, not of the clocks
		// read before them (see store.Driver).
		if !rec.UpdatedAt.After(old.UpdatedAt) {
			rec.UpdatedAt = old.UpdatedAt.Add(time.Microsecond)
		}
		rec.CreatedAt = rec.UpdatedAt
		if !old.Expired(rec.UpdatedAt) {
			rec.CreatedAt = old.CreatedAt
		}
	}
	d.items[k] = &rec
	return nil
}

// Get implements store.Driver.
func (d *Driver) Get(ctx context.Context, ns, key string, now time.Time) (*store.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	rec, ok := d.items[itemKey{ns, key}]
	if !ok || rec.Expired(now) {
		return nil, nil
	}
	c := *rec
	c.Vectors = nil
	return &c, nil
}

// Delete implements store.Driver.
func (d *Driver) Delete(ctx context.Context, ns, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.items, itemKey{ns, key})
	return nil
}

// Scan implements store.Driver. It yields a snapshot taken when it starts.
func (d *Driver) Scan(ctx context.Context, prefix string, now time.Time, vectors bool) iter.Seq2[*store.Record, error] {
	return func(yield func(*store.Record, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(nil, err)
			return
		}
		d.mu.RLock()
		var recs []*store.Record
		for _, r := range d.items {
			if under(r.Namespace, prefix) && !r.Expired(now) {
				recs = append(recs, r)
			}
		}
		d.mu.RUnlock()
		slices.SortFunc(recs, func(a, b *store.Record) int {
			return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Key, b.Key))
		})
		for _, r := range recs {
			c := *r
			if !vectors {
				c.Vectors = nil
			}
			if !yield(&c, nil) {
				return
			}
		}
	}
}

// under reports whether the encoded namespace ns is prefix or below it.
func under(ns, prefix string) bool {
	return prefix == "" || ns == prefix || strings.HasPrefix(ns, prefix+".")
}

// Namespaces implements store.Driver.
func (d *Driver) Namespaces(ctx context.Context, now time.Time) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	seen := map[string]bool{}
	for _, r := range d.items {
		if !r.Expired(now) {
			seen[r.Namespace] = true
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out, nil
}

// Refresh implements store.Driver.
func (d *Driver) Refresh(ctx context.Context, refs []store.Ref, now time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, ref := range refs {
		k := itemKey{ref.Namespace, ref.Key}
		if r, ok := d.items[k]; ok && r.TTL > 0 && !r.Expired(now) {
			c := *r // records are immutable: Scans in flight may hold r
			c.ExpiresAt = now.Add(r.TTL)
			d.items[k] = &c
		}
	}
	return nil
}

// DeleteExpired implements store.Driver.
func (d *Driver) DeleteExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for k, r := range d.items {
		if n == limit {
			break
		}
		if r.Expired(now) {
			delete(d.items, k)
			n++
		}
	}
	return n, nil
}
