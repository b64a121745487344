package encrypt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"

	"github.com/stategraph/stategraph/checkpoint"
)

// SealChannel is the channel under which the wrapper stores each
// checkpoint's seal: an encrypted digest of the checkpoint's parent,
// channel versions and metadata. It is reserved: a Put that names it is
// refused, and reads never return it.
const SealChannel = "__seal__"

// core is the wrapper of every shape: the methods of checkpoint.Saver.
type core struct {
	inner checkpoint.Saver
	ring  *Keyring
}

// Wrap returns a saver that stores through inner with every value
// encrypted under ring's active key and every read authenticated (see the
// package documentation for what is covered). It implements the optional
// interfaces of inner that carry no values — checkpoint.Leaser,
// checkpoint.LeaseBreaker, checkpoint.Pruner, checkpoint.Verifier — and
// graph.TxSaver (the writes the transaction stores are encrypted), and
// checkpoint.HeadGetter always (through inner's GetHead, or its Get), and
// not checkpoint.Copier (a copied row is bound to its source thread, and
// re-encrypting a copy needs the thread's namespaces, which the Saver
// interface does not list). It has Migrate and Close methods, which call
// inner's when it has them and otherwise do nothing, and Unwrap, which
// returns inner. Wrap panics if inner or ring is nil.
func Wrap(inner checkpoint.Saver, ring *Keyring) checkpoint.Saver {
	if inner == nil {
		panic("encrypt: Wrap: nil saver")
	}
	if ring == nil {
		panic(errNoKeyring)
	}
	return shape(&core{inner: inner, ring: ring})
}

// Unwrap returns the wrapped saver.
func (c *core) Unwrap() checkpoint.Saver { return c.inner }

// Migrate runs the wrapped saver's Migrate (its tables), if it has one.
func (c *core) Migrate(ctx context.Context) error {
	if m, ok := c.inner.(interface{ Migrate(context.Context) error }); ok {
		return m.Migrate(ctx)
	}
	return nil
}

// Close closes the wrapped saver, if it has a Close method.
func (c *core) Close() error {
	if cl, ok := c.inner.(interface{ Close() error }); ok {
		return cl.Close()
	}
	return nil
}

// Put encrypts the new blobs, adds the checkpoint's seal and stores it
// through the wrapped saver.
func (c *core) Put(ctx context.Context, req checkpoint.PutRequest) (checkpoint.Config, error) {
	cfg, cp := req.Config, &req.Checkpoint
	if _, ok := cp.Versions[SealChannel]; ok {
		return checkpoint.Config{}, fmt.Errorf("encrypt: thread %q, checkpoint %q: channel %q is reserved by the encrypting saver", cfg.ThreadID, cp.ID, SealChannel)
	}
	if _, ok := cp.New[SealChannel]; ok {
		return checkpoint.Config{}, fmt.Errorf("encrypt: thread %q, checkpoint %q: channel %q is reserved by the encrypting saver", cfg.ThreadID, cp.ID, SealChannel)
	}
	blobs := make(map[string]checkpoint.Blob, len(cp.New)+1)
	for ch, b := range cp.New {
		if b.Version == "" {
			b.Version = cp.Versions[ch] // as the saver would; none left is its refusal
		}
		if b.Version != "" {
			data, err := c.ring.seal(b.Data, blobID(cfg, ch), blobLabel(b.Version, b.Base, b.Delta))
			if err != nil {
				return checkpoint.Config{}, err
			}
			b.Data = data
		}
		blobs[ch] = b
	}
	digest, err := sealDigest(cfg.CheckpointID, cp.Versions, req.Metadata)
	if err != nil {
		return checkpoint.Config{}, fmt.Errorf("encrypt: thread %q, checkpoint %q: %w", cfg.ThreadID, cp.ID, err)
	}
	seal, err := c.ring.seal(digest, sealID(cfg, cp.ID), nil)
	if err != nil {
		return checkpoint.Config{}, err
	}
	versions := maps.Clone(cp.Versions)
	if versions == nil {
		versions = map[string]string{}
	}
	versions[SealChannel] = cp.ID
	blobs[SealChannel] = checkpoint.Blob{Version: cp.ID, Data: seal}
	cp.Versions, cp.New = versions, blobs
	return c.inner.Put(ctx, req)
}

// PutWrites encrypts each write's value, bound to its checkpoint, task,
// index and channel.
func (c *core) PutWrites(ctx context.Context, cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) error {
	out, err := c.sealWrites(cfg, taskID, writes)
	if err != nil {
		return err
	}
	return c.inner.PutWrites(ctx, cfg, taskID, out)
}

// sealWrites returns writes with each value encrypted, bound to its
// checkpoint, task, index and channel.
func (c *core) sealWrites(cfg checkpoint.Config, taskID string, writes []checkpoint.PendingWrite) ([]checkpoint.PendingWrite, error) {
	out := make([]checkpoint.PendingWrite, len(writes))
	for i, w := range writes {
		data, err := c.ring.seal(w.Value, writeID(cfg, cfg.CheckpointID, taskID, w.Index, w.Channel), nil)
		if err != nil {
			return nil, err
		}
		w.Value = data
		out[i] = w
	}
	return out, nil
}

// Get reads through the wrapped saver and decrypts; a value that does not
// authenticate is an *Error.
func (c *core) Get(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	tup, err := c.inner.Get(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.open(tup); err != nil {
		return nil, err
	}
	return tup, nil
}

// GetHead is Get without the values of the state's fields
// (checkpoint.HeadGetter). The wrapped saver's GetHead returns the
// reserved channels' values, the seal among them, so the head is
// authenticated as Get's tuple is: the seal covers the parent, versions
// and metadata, and the schedule and pending writes are decrypted and
// checked. A wrapped saver without GetHead is read with Get, and the
// fields' values are dropped after they authenticate.
func (c *core) GetHead(ctx context.Context, cfg checkpoint.Config) (*checkpoint.Tuple, error) {
	hg, ok := c.inner.(checkpoint.HeadGetter)
	if !ok {
		tup, err := c.Get(ctx, cfg)
		if err != nil {
			return nil, err
		}
		maps.DeleteFunc(tup.Checkpoint.Values, func(ch string, _ checkpoint.Value) bool { return !checkpoint.IsReserved(ch) })
		return tup, nil
	}
	tup, err := hg.GetHead(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.open(tup); err != nil {
		return nil, err
	}
	return tup, nil
}

// List reads through the wrapped saver and decrypts each checkpoint.
func (c *core) List(ctx context.Context, cfg checkpoint.Config, opts checkpoint.ListOptions) iter.Seq2[*checkpoint.Tuple, error] {
	return func(yield func(*checkpoint.Tuple, error) bool) {
		for tup, err := range c.inner.List(ctx, cfg, opts) {
			if err == nil {
				err = c.open(tup)
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if !yield(tup, nil) {
				return
			}
		}
	}
}

// DeleteThread deletes through the wrapped saver.
func (c *core) DeleteThread(ctx context.Context, threadID string) error {
	return c.inner.DeleteThread(ctx, threadID)
}

// open checks tup's seal and decrypts its values and pending writes in
// place.
func (c *core) open(tup *checkpoint.Tuple) error {
	cfg, cp := tup.Config, &tup.Checkpoint
	fail := func(what, ch string, err error) error {
		return &Error{Thread: cfg.ThreadID, Namespace: cfg.Namespace, Checkpoint: cp.ID, Channel: ch, What: what, Err: err}
	}
	o := &opener{ring: c.ring, arena: make([]byte, 0, sealedSize(tup))}
	o.arena = o.arena[:cap(o.arena)]
	sv, ok := cp.Values[SealChannel]
	if !ok || cp.Versions[SealChannel] != cp.ID || len(sv.Deltas) > 0 {
		return fail("seal", "", fmt.Errorf("%w: the checkpoint has no seal of its own", ErrPlaintext))
	}
	got, _, err := o.open(sv.Snapshot, sealID(cfg, cp.ID))
	if err != nil {
		return fail("seal", "", err)
	}
	delete(cp.Versions, SealChannel)
	delete(cp.Values, SealChannel)
	parent := ""
	if tup.Parent != nil {
		parent = tup.Parent.CheckpointID
	}
	want, err := sealDigest(parent, cp.Versions, tup.Metadata)
	if err != nil || !bytes.Equal(got, want) {
		return fail("seal", "", ErrSealMismatch)
	}
	values := make(map[string]checkpoint.Value, len(cp.Values))
	for ch, v := range cp.Values {
		dv, err := o.openValue(cfg, ch, v)
		if err != nil {
			return fail("blob", ch, err)
		}
		values[ch] = dv
	}
	cp.Values = values
	writes := make([]checkpoint.PendingWrite, len(tup.PendingWrites))
	for i, w := range tup.PendingWrites {
		plain, _, err := o.open(w.Value, writeID(cfg, cp.ID, w.TaskID, w.Index, w.Channel))
		if err != nil {
			return &Error{Thread: cfg.ThreadID, Namespace: cfg.Namespace, Checkpoint: cp.ID, Channel: w.Channel, Task: w.TaskID, Index: w.Index, What: "pending write", Err: err}
		}
		w.Value = plain
		writes[i] = w
	}
	tup.PendingWrites = writes
	return nil
}

// openValue decrypts a channel's snapshot and deltas and checks that they
// link up: each delta extends the version before it, and the last is the
// version the checkpoint names.
func (o *opener) openValue(cfg checkpoint.Config, ch string, v checkpoint.Value) (checkpoint.Value, error) {
	out := checkpoint.Value{Version: v.Version}
	var prev []byte
	id := blobID(cfg, ch)
	if len(v.Snapshot) > 0 {
		plain, label, err := o.open(v.Snapshot, id)
		if err != nil {
			return out, err
		}
		ver, _, delta, ok := parseBlobLabel(label)
		if !ok || delta {
			return out, fmt.Errorf("%w: the snapshot is labelled as a delta", ErrChain)
		}
		out.Snapshot, prev = plain, ver
	}
	if len(v.Deltas) > 0 {
		out.Deltas = make([][]byte, len(v.Deltas))
	}
	for i, d := range v.Deltas {
		plain, label, err := o.open(d, id)
		if err != nil {
			return out, fmt.Errorf("delta %d: %w", i, err)
		}
		ver, base, delta, ok := parseBlobLabel(label)
		if !ok || !delta || !bytes.Equal(base, prev) {
			return out, fmt.Errorf("%w: delta %d (version %q) does not extend %q", ErrChain, i, ver, prev)
		}
		out.Deltas[i], prev = plain, ver
	}
	if string(prev) != v.Version {
		if prev == nil {
			return out, fmt.Errorf("%w: the value is empty or not encrypted", ErrPlaintext)
		}
		return out, fmt.Errorf("%w: the chain ends at version %q, the checkpoint names %q", ErrChain, prev, v.Version)
	}
	return out, nil
}

// sealedSize bounds the size of the plaintexts of tup: the size of its
// ciphertexts, so one allocation holds them all.
func sealedSize(tup *checkpoint.Tuple) int {
	n := 0
	for _, v := range tup.Checkpoint.Values {
		n += len(v.Snapshot)
		for _, d := range v.Deltas {
			n += len(d)
		}
	}
	for _, w := range tup.PendingWrites {
		n += len(w.Value)
	}
	return n
}

func blobID(cfg checkpoint.Config, ch string) identity {
	return identity{purpose: purposeBlob, fields: []string{cfg.ThreadID, cfg.Namespace, ch}}
}

func sealID(cfg checkpoint.Config, id string) identity {
	return identity{purpose: purposeSeal, fields: []string{cfg.ThreadID, cfg.Namespace, id}}
}

func writeID(cfg checkpoint.Config, id, task string, idx int, ch string) identity {
	return identity{purpose: purposeWrite, fields: []string{cfg.ThreadID, cfg.Namespace, id, task, strconv.Itoa(idx), ch}}
}

// sealDigest hashes what a checkpoint's seal covers: its parent, its
// channel versions (the seal's own excluded) and its metadata in the form
// a JSON round trip gives it, as savers return it.
func sealDigest(parent string, versions map[string]string, md checkpoint.Metadata) ([]byte, error) {
	raw, err := json.Marshal(md)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	var norm any
	if err := json.Unmarshal(raw, &norm); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	if raw, err = json.Marshal(norm); err != nil { // keys sorted, numbers as float64
		return nil, fmt.Errorf("metadata: %w", err)
	}
	h := sha256.New()
	put := func(s string) {
		h.Write(binary.AppendUvarint(nil, uint64(len(s))))
		h.Write([]byte(s))
	}
	put(parent)
	names := slices.Sorted(maps.Keys(versions))
	for _, ch := range names {
		if ch == SealChannel {
			continue
		}
		put(ch)
		put(versions[ch])
	}
	put(string(raw))
	return h.Sum(nil), nil
}
