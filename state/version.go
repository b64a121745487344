package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Stored is what a Migration rewrites: field values as a checkpoint
// holds them, by field name, each encoded by the graph's serializer (JSON
// by default, so each is a json.RawMessage). An append field's value is
// one JSON array, its stored deltas joined.
type Stored struct {
	// Fields maps a field name to its encoded value. A migration renames,
	// converts, adds and deletes entries; a name left that the new schema
	// does not have is dropped after the last migration.
	Fields map[string]json.RawMessage
	// Partial is set when Fields are the fields one saved write (or a
	// Send's input) sets rather than a whole state: a migration must not
	// add defaults to them, or a write would appear that no node made.
	// Default does nothing when Partial is set.
	Partial bool
}

// Rename moves the value of field from to field to, if from has one.
func (s *Stored) Rename(from, to string) {
	if v, ok := s.Fields[from]; ok {
		delete(s.Fields, from)
		s.Fields[to] = v
	}
}

// Default gives field name the value v (encoded as JSON) when the state
// has no value for it. It does nothing for a partial set of fields.
func (s *Stored) Default(name string, v any) error {
	if s.Partial {
		return nil
	}
	if _, ok := s.Fields[name]; ok {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("state: default of field %q: %w", name, err)
	}
	s.Fields[name] = data
	return nil
}

// Convert decodes field name's value into a value of type From, maps it
// through f and stores the result, when the field has a value: a changed
// type.
func Convert[From, To any](s *Stored, name string, f func(From) (To, error)) error {
	data, ok := s.Fields[name]
	if !ok {
		return nil
	}
	var old From
	if err := json.Unmarshal(data, &old); err != nil {
		return fmt.Errorf("state: convert field %q: %w", name, err)
	}
	nv, err := f(old)
	if err != nil {
		return fmt.Errorf("state: convert field %q: %w", name, err)
	}
	out, err := json.Marshal(nv)
	if err != nil {
		return fmt.Errorf("state: convert field %q: %w", name, err)
	}
	s.Fields[name] = out
	return nil
}

// Migration brings the stored values of one schema version to the next.
// It changes s in place. It must be deterministic and must not keep s.
type Migration func(s *Stored) error

// ErrNewerVersion is the error of Migrate for values stored by a schema
// version newer than the schema's: code older than the data that meets
// it (a rollback) refuses it rather than misread it.
var ErrNewerVersion = errors.New("state: stored by a newer schema version")

// Versioned sets the schema's version (1 when never set) and registers the
// migrations that bring older versions up to it: migrations[v] takes the
// values stored by version v to version v+1, for v from 1 to version-1.
// A version some step up from is missing cannot be read, and says so. It
// returns sc; problems (a version below 1, a migration outside
// [1, version), a nil migration) are reported by Err and by the graph's
// Compile.
func (sc *Schema[S]) Versioned(version int, migrations map[int]Migration) *Schema[S] {
	var errs []error
	if sc.err != nil {
		errs = append(errs, sc.err)
	}
	if version < 1 {
		errs = append(errs, fmt.Errorf("state: schema version %d: versions start at 1", version))
	}
	for _, from := range slices.Sorted(maps.Keys(migrations)) {
		switch {
		case from < 1 || from >= version:
			errs = append(errs, fmt.Errorf("state: schema version %d: a migration from version %d, outside 1 to %d", version, from, version-1))
		case migrations[from] == nil:
			errs = append(errs, fmt.Errorf("state: schema version %d: the migration from version %d is nil", version, from))
		}
	}
	sc.version, sc.migrations, sc.err = version, maps.Clone(migrations), errors.Join(errs...)
	return sc
}

// Version returns the schema's version: 1 unless Versioned set another.
func (sc *Schema[S]) Version() int { return max(sc.version, 1) }

// Migrate brings values stored by schema version from up to the schema's
// version, applying each registered migration in turn, then drops the
// names the schema does not have. Values of the schema's own version are
// left alone. Values of a newer version are ErrNewerVersion; a version
// with no migration up from it is an error naming it.
func (sc *Schema[S]) Migrate(from int, s *Stored) error {
	to := sc.Version()
	switch {
	case from > to:
		return fmt.Errorf("%w: version %d, this schema is version %d", ErrNewerVersion, from, to)
	case from < 1:
		return fmt.Errorf("state: stored schema version %d is not a version (they start at 1)", from)
	case from == to:
		return nil
	}
	if s.Fields == nil {
		s.Fields = map[string]json.RawMessage{}
	}
	for v := from; v < to; v++ {
		m := sc.migrations[v]
		if m == nil {
			return fmt.Errorf("state: no migration from schema version %d to %d (the schema is version %d)", v, v+1, to)
		}
		if err := m(s); err != nil {
			return fmt.Errorf("state: migration from schema version %d to %d: %w", v, v+1, err)
		}
	}
	maps.DeleteFunc(s.Fields, func(name string, _ json.RawMessage) bool { return sc.Index(name) < 0 })
	return nil
}
