package state

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
)

// Kind is the reducer a field applies.
type Kind uint8

// The reducer kinds.
const (
	KindValue  Kind = iota // last value; one write per step
	KindAppend             // slices appended in order
	KindMerge              // maps merged, later keys win
	KindSum                // numbers added
	KindCustom             // a user func(old, update T) T
)

func (k Kind) String() string {
	switch k {
	case KindValue:
		return "value"
	case KindAppend:
		return "append"
	case KindMerge:
		return "merge"
	case KindSum:
		return "sum"
	case KindCustom:
		return "custom"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ErrInvalidUpdate marks an update the reducers cannot apply: two writes to
// a last-value field in one step, two overwrites, or a value of the wrong
// type.
var ErrInvalidUpdate = errors.New("state: invalid update")

// Codec turns values into bytes and back. checkpoint.Serializer satisfies
// it; encoding/json is the default.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// Field is a field of S as the runtime sees it, whatever its value type.
// Fields are made by Value, Append, Merge, Sum and Reduce; the interface is
// sealed.
type Field[S any] interface {
	// Name is the field's stable name, used in checkpoints, errors and
	// diagrams.
	Name() string
	// Kind is the field's reducer.
	Kind() Kind

	field() *base[S]
}

// base is what every Key shares, reachable without the value type.
type base[S any] struct {
	name string
	kind Kind
	ops  fieldOps[S]
}

// fieldOps are the type-specific operations of a field.
type fieldOps[S any] interface {
	// apply applies one step's writes to s. private forces reducers that
	// would otherwise grow shared memory in place (append) to copy. It
	// reports rewrote when an AppendReduce reducer did more than append.
	apply(s *S, ws []*Write[S], private bool) (rewrote bool, err error)
	zero(s *S)
	length(s *S) int
	encode(s *S, c Codec) ([]byte, error)
	encodeTail(s *S, from int, c Codec) ([]byte, error)
	decode(s *S, snapshot []byte, deltas [][]byte, c Codec) error
	decodeValue(data []byte, c Codec) (any, error)
	equal(a, b *S) bool
	diff(from, to *S) (Write[S], bool)
	copyField(dst, src *S)
	copyPrefix(dst, src *S, n int) bool
	cloneSlice(s *S)
	// at returns the field of s, addressable.
	at(s *S) reflect.Value
}

// Key is a typed field of S holding a T. It makes the writes a node
// returns and reads the field from a state.
type Key[S, T any] struct {
	base[S]
	get    func(*S) *T
	reduce func(old, update T) T // nil for KindValue
	minus  func(a, b T) T        // Sum only: a - b
	// AppendReduce only: the reducer with its report, and plain append
	// for the deltas a stored value is rebuilt from.
	reportAppend func(old, update T) (T, bool)
	grow         func(old, update T) T
	// AppendReduce only: decodes a write that is one element, not a list.
	decodeOne func(data []byte, c Codec) (T, error)
}

// Name returns the field's stable name.
func (k *Key[S, T]) Name() string { return k.name }

// Kind returns the field's reducer.
func (k *Key[S, T]) Kind() Kind { return k.kind }

func (k *Key[S, T]) field() *base[S] { return &k.base }

// Get returns the field's value in s.
func (k *Key[S, T]) Get(s S) T { return *k.get(&s) }

// Set returns a write of v through the field's reducer: the new value for
// a last-value field, the elements to append, the entries to merge, the
// amount to add.
func (k *Key[S, T]) Set(v T) Write[S] { return Write[S]{key: &k.base, value: v} }

// Overwrite returns a write that replaces the field's value for this step,
// bypassing its reducer (the other writes to the field in the step are
// ignored). For a last-value field it is the same as Set.
func (k *Key[S, T]) Overwrite(v T) Write[S] {
	return Write[S]{key: &k.base, value: v, overwrite: k.kind != KindValue}
}

func newKey[S, T any](name string, kind Kind, get func(*S) *T, reduce func(old, update T) T) *Key[S, T] {
	k := &Key[S, T]{get: get, reduce: reduce}
	k.base = base[S]{name: name, kind: kind}
	k.ops = keyOps[S, T]{k}
	return k
}

// Value declares a last-value field: each step it takes the one value
// written to it.
func Value[S, T any](name string, get func(*S) *T) *Key[S, T] {
	return newKey[S, T](name, KindValue, get, nil)
}

// Append declares a slice field whose writes are appended in order. Its
// history can be stored as deltas: a step costs the elements it appended,
// not the length of the slice.
func Append[S, E any](name string, get func(*S) *[]E) *Key[S, []E] {
	return newKey(name, KindAppend, get, func(old, update []E) []E { return append(old, update...) })
}

// Merge declares a map field whose writes are merged into it; a later
// write's keys win. The merged map is a new map: states handed out earlier
// never change.
func Merge[S any, K comparable, V any](name string, get func(*S) *map[K]V) *Key[S, map[K]V] {
	return newKey(name, KindMerge, get, func(old, update map[K]V) map[K]V {
		out := make(map[K]V, len(old)+len(update))
		maps.Copy(out, old)
		maps.Copy(out, update)
		return out
	})
}

// Number is a type Sum can add.
type Number interface {
	cmp.Ordered
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// Sum declares a numeric field whose writes are added to it.
func Sum[S any, T Number](name string, get func(*S) *T) *Key[S, T] {
	k := newKey(name, KindSum, get, func(old, update T) T { return old + update })
	k.minus = func(a, b T) T { return a - b }
	return k
}

// AppendReduce declares a slice field with a custom reducer that reports
// whether it only appended: appended is true when old is a prefix of out,
// its elements unchanged, and false when the write replaced or removed
// some of them. fn must not modify old. The field is stored as an Append
// field is (Kind reports KindAppend): a step whose writes only appended
// costs the new elements (a delta), and a step whose reducer reported
// anything else stores the whole value (a snapshot). A messages field
// (LangGraph's add_messages) is the case it is made for; as add_messages
// takes a single message for a list of one, a write decoded from JSON
// (Schema.DecodeWrite: the server's input) may be one element rather
// than a list.
func AppendReduce[S, E any](name string, get func(*S) *[]E, fn func(old, update []E) (out []E, appended bool)) *Key[S, []E] {
	k := newKey(name, KindAppend, get, func(old, update []E) []E { out, _ := fn(old, update); return out })
	k.reportAppend = fn
	k.grow = func(old, update []E) []E { return append(old, update...) } // decode's own value
	k.decodeOne = func(data []byte, c Codec) ([]E, error) {
		var e E
		if err := c.Unmarshal(data, &e); err != nil {
			return nil, err
		}
		return []E{e}, nil
	}

	return k
}

// Reduce declares a field with a custom reducer. fn must not modify old:
// it may be shared with states handed out earlier.
func Reduce[S, T any](name string, get func(*S) *T, fn func(old, update T) T) *Key[S, T] {
	return newKey(name, KindCustom, get, fn)
}
