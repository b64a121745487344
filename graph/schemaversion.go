package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stategraph/stategraph/checkpoint"
	"github.com/stategraph/stategraph/state"
)

// SchemaVersionKey is the metadata key (checkpoint.Metadata.Extra) under
// which a checkpoint records the version of the state schema that wrote it
// (state.Schema.Versioned). It is written only by a schema of version 2 or
// more: a checkpoint without it was written by version 1. It is a key
// like any other of Extra, so History can filter on it; its underscores
// keep it apart from the keys users choose.
const SchemaVersionKey = "__schema_version__"

// ErrSchemaVersion marks a checkpoint this graph cannot read because of
// its schema version: written by a newer schema than the graph's (code
// rolled back under data written by newer code), or by an older one no
// registered migration reaches. It is a *SchemaVersionError.
var ErrSchemaVersion = errors.New("graph: checkpoint schema version")

// SchemaVersionError names the thread, namespace and checkpoint whose
// schema version the graph cannot read, and both versions.
type SchemaVersionError struct {
	Thread, Namespace, Checkpoint string
	// Stored is the version that wrote the checkpoint; Schema the
	// graph's.
	Stored, Schema int
	Err            error
}

// Error names the checkpoint and both versions.
func (e *SchemaVersionError) Error() string {
	where := fmt.Sprintf("thread %q", e.Thread)
	if e.Namespace != "" {
		where += fmt.Sprintf(", namespace %q", e.Namespace)
	}
	if e.Stored > e.Schema {
		return fmt.Sprintf("graph: %s: checkpoint %q was written by state schema version %d, newer than this graph's version %d: run the newer code (or a version with its migrations)",
			where, e.Checkpoint, e.Stored, e.Schema)
	}
	return fmt.Sprintf("graph: %s: checkpoint %q was written by state schema version %d; this graph's is %d: %v",
		where, e.Checkpoint, e.Stored, e.Schema, e.Err)
}

// Unwrap returns the cause.
func (e *SchemaVersionError) Unwrap() error { return e.Err }

// Is reports whether target is ErrSchemaVersion.
func (e *SchemaVersionError) Is(target error) bool { return target == ErrSchemaVersion }

// withSchemaVersion returns the user metadata of a checkpoint with the
// schema's version added, when it is above 1 (extra itself otherwise, so
// an unversioned graph stores what it always did).
func (c *Compiled[S]) withSchemaVersion(extra map[string]any) map[string]any {
	v := c.schema.Version()
	if v <= 1 {
		return extra
	}
	out := make(map[string]any, len(extra)+1)
	maps.Copy(out, extra)
	out[SchemaVersionKey] = v
	return out
}

// storedSchemaVersion returns the schema version a checkpoint's metadata
// records: 1 when it records none.
func storedSchemaVersion(md checkpoint.Metadata) (int, error) {
	raw, ok := md.Extra[SchemaVersionKey]
	if !ok {
		return 1, nil
	}
	switch v := raw.(type) {
	case int:
		return v, nil
	case int64:
		return int(v), nil
	case float64:
		if v == float64(int(v)) {
			return int(v), nil
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("metadata %q is %v (%T), not a version number", SchemaVersionKey, raw, raw)
}

// migrateStored brings tup, a checkpoint of cfg's thread and namespace,
// to the graph's schema version when an older schema wrote it, and reports
// whether it did. It rewrites tup in place: its field values (delta
// chains joined into one value each), the inputs of the Sends its
// schedule holds, its pending writes (each as a partial set of fields, so
// no defaults are added), and the version its metadata records, so a
// second decode of tup is a no-op. The fields leave its Versions: the run
// that goes on from it stores every field anew (markMigrated), so no
// checkpoint of the new version refers to a blob of the old.
func (c *Compiled[S]) migrateStored(tup *checkpoint.Tuple, cfg checkpoint.Config) (bool, error) {
	sc := c.schema
	to := sc.Version()
	from, err := storedSchemaVersion(tup.Metadata)
	if err == nil && from == to {
		return false, nil
	}
	fail := func(err error) (bool, error) {
		return false, &SchemaVersionError{Thread: cfg.ThreadID, Namespace: cfg.Namespace, Checkpoint: tup.Config.CheckpointID, Stored: from, Schema: to, Err: err}
	}
	if err != nil {
		return fail(fmt.Errorf("%w: %w", checkpoint.ErrCorrupt, err))
	}
	if from > to {
		return fail(state.ErrNewerVersion)
	}
	cp := &tup.Checkpoint
	whole := state.Stored{Fields: make(map[string]json.RawMessage, len(cp.Values))}
	for name, v := range cp.Values {
		if checkpoint.IsReserved(name) {
			continue
		}
		data, err := joinValue(v)
		if err != nil {
			return fail(fmt.Errorf("field %q: %w: %w", name, checkpoint.ErrCorrupt, err))
		}
		whole.Fields[name] = data
	}
	if err := sc.Migrate(from, &whole); err != nil {
		return fail(err)
	}
	values := make(map[string]checkpoint.Value, len(whole.Fields)+1)
	versions := make(map[string]string, 1)
	for name, v := range cp.Values {
		if checkpoint.IsReserved(name) {
			values[name], versions[name] = v, cp.Versions[name]
		}
	}
	if next, ok := values[checkpoint.NextChannel]; ok {
		data, err := c.migrateSchedule(from, next.Snapshot)
		if err != nil {
			return fail(fmt.Errorf("the schedule: %w", err))
		}
		next.Snapshot, next.Deltas = data, nil
		values[checkpoint.NextChannel] = next
	}
	for name, data := range whole.Fields {
		values[name] = checkpoint.Value{Snapshot: data}
	}
	writes, err := c.migrateWrites(from, tup.PendingWrites)
	if err != nil {
		return fail(err)
	}
	extra := maps.Clone(tup.Metadata.Extra)
	if extra == nil {
		extra = map[string]any{}
	}
	extra[SchemaVersionKey] = to
	cp.Values, cp.Versions, tup.PendingWrites, tup.Metadata.Extra = values, versions, writes, extra
	return true, nil
}

// joinValue returns a stored value as one encoding: its snapshot, or, for
// an append field stored with deltas, the JSON arrays of snapshot and
// deltas joined.
func joinValue(v checkpoint.Value) (json.RawMessage, error) {
	if len(v.Deltas) == 0 {
		return v.Snapshot, nil
	}
	var all []json.RawMessage
	for i, part := range append([][]byte{v.Snapshot}, v.Deltas...) {
		if i == 0 && len(part) == 0 {
			continue // a chain from the empty value
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(part, &elems); err != nil {
			return nil, fmt.Errorf("join its deltas (a migration needs JSON): %w", err)
		}
		all = append(all, elems...)
	}
	return json.Marshal(all)
}

// migrateSend migrates the input of a Send: a whole state, field by field.
// Its Full encoding (the struct of the old version) is dropped: the
// migrated fields are what the task gets.
func (c *Compiled[S]) migrateSend(from int, ss *checkpoint.ScheduledSend) error {
	st := state.Stored{Fields: make(map[string]json.RawMessage, len(ss.Arg))}
	for name, data := range ss.Arg {
		st.Fields[name] = data
	}
	if err := c.schema.Migrate(from, &st); err != nil {
		return fmt.Errorf("send to %q: %w", ss.Node, err)
	}
	ss.Arg = make(map[string][]byte, len(st.Fields))
	for name, data := range st.Fields {
		ss.Arg[name] = data
	}
	ss.Full = nil
	return nil
}

// migrateSchedule migrates the Sends of a stored schedule.
func (c *Compiled[S]) migrateSchedule(from int, data []byte) ([]byte, error) {
	s, err := checkpoint.ParseSchedule(data)
	if err != nil || len(s.Sends) == 0 {
		return data, nil // decode reports a bad schedule
	}
	for i := range s.Sends {
		if err := c.migrateSend(from, &s.Sends[i]); err != nil {
			return nil, err
		}
	}
	return checkpoint.AppendSchedule(nil, s)
}

// migrateWrites migrates pending writes: each write to a field as the
// partial set of that one field (a rename renames it, a conversion
// converts it, a write to a field the schema lost is dropped), each Send
// as a whole input; the runtime's other writes are kept as they are.
func (c *Compiled[S]) migrateWrites(from int, ws []checkpoint.PendingWrite) ([]checkpoint.PendingWrite, error) {
	out := make([]checkpoint.PendingWrite, 0, len(ws))
	for _, w := range ws {
		switch {
		case w.Channel == checkpoint.SendChannel:
			var ss checkpoint.ScheduledSend
			if err := json.Unmarshal(w.Value, &ss); err != nil {
				out = append(out, w) // decode reports it
				continue
			}
			if err := c.migrateSend(from, &ss); err != nil {
				return nil, fmt.Errorf("pending write of task %q: %w", w.TaskID, err)
			}
			data, err := json.Marshal(ss)
			if err != nil {
				return nil, err
			}
			w.Value = data
			out = append(out, w)
		case checkpoint.IsReserved(w.Channel):
			out = append(out, w)
		default:
			prefix, name := "", w.Channel
			if rest, ok := strings.CutPrefix(name, "!"); ok { // an overwrite (state.EncodeWrite)
				prefix, name = "!", rest
			}
			st := state.Stored{Fields: map[string]json.RawMessage{name: w.Value}, Partial: true}
			if err := c.schema.Migrate(from, &st); err != nil {
				return nil, fmt.Errorf("pending write of task %q to field %q: %w", w.TaskID, name, err)
			}
			for _, n := range slices.Sorted(maps.Keys(st.Fields)) {
				nw := w
				nw.Channel, nw.Value = prefix+n, st.Fields[n]
				out = append(out, nw)
			}
		}
	}
	return out, nil
}

// markMigrated makes the run that goes on from a migrated checkpoint
// store every field in its next checkpoint, under the new version.
func (p *persist[S]) markMigrated(d *decoded[S]) {
	if !d.migrated {
		return
	}
	for i := range p.dirty {
		p.dirty[i] = true
	}
}
