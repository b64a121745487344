package state

import (
	"fmt"
	"reflect"
	"sync"
)

// namedReducer is a reducer registered by name, its value type erased so
// that FromStruct can apply it to a field found by reflection.
type namedReducer struct {
	typ    reflect.Type
	reduce func(old, update any) any
	// report is set for RegisterAppendReducer's reducers: the field is
	// stored as an append field.
	report func(old, update any) (any, bool)
	one    reflect.Type // the element type of an append reducer
}

var (
	reducersMu sync.RWMutex
	reducers   = map[string]namedReducer{}
)

// RegisterReducer registers fn under name, for the fields of structs read
// by FromStruct tagged `state:"reducer=NAME"`. A field so tagged must hold
// a T; it behaves as one declared with Reduce. fn must not modify old.
// Register in an init function or before FromStruct runs; it panics when
// name is taken or invalid, as database/sql.Register does.
func RegisterReducer[T any](name string, fn func(old, update T) T) {
	register(name, fn != nil, namedReducer{
		typ: reflect.TypeFor[T](),
		reduce: func(old, update any) any {
			o, _ := old.(T)
			u, _ := update.(T)
			return fn(o, u)
		},
	})
}

// RegisterAppendReducer registers fn under name, for slice fields tagged
// `state:"reducer=NAME"`: the field behaves as one declared with
// AppendReduce, stored as deltas while fn reports that it only appended.
// The chat package registers its messages reducer as "messages", which
// the tag `state:"messages"` names.
func RegisterAppendReducer[E any](name string, fn func(old, update []E) (out []E, appended bool)) {
	register(name, fn != nil, namedReducer{
		typ: reflect.TypeFor[[]E](),
		one: reflect.TypeFor[E](),
		reduce: func(old, update any) any {
			out, _ := fn(asSlice[E](old), asSlice[E](update))
			return out
		},
		report: func(old, update any) (any, bool) {
			return fn(asSlice[E](old), asSlice[E](update))
		},
	})
}

func asSlice[E any](v any) []E {
	s, _ := v.([]E)
	return s
}

func register(name string, ok bool, r namedReducer) {
	switch {
	case !ok:
		panic(fmt.Sprintf("state: reducer %q is nil", name))
	case !validName.MatchString(name):
		panic(fmt.Sprintf("state: reducer name %q is invalid: use letters, digits, '_', '.', '-', not starting with a digit", name))
	}
	reducersMu.Lock()
	defer reducersMu.Unlock()
	if _, dup := reducers[name]; dup {
		panic(fmt.Sprintf("state: a reducer named %q is already registered", name))
	}
	reducers[name] = r
}

func lookupReducer(name string) (namedReducer, bool) {
	reducersMu.RLock()
	defer reducersMu.RUnlock()
	r, ok := reducers[name]
	return r, ok
}
