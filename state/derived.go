package state

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// FromStruct derives the schema of S from its exported fields and their
// `state` struct tags (see the tag words below), in field order: each
// field is named by its tag's name= word or, without one, by its Go name
// in snake_case (PastSteps is "past_steps"), and reduced as its tag says
// (last value when it says nothing):
//
//	type Jokes struct {
//		Topic    string                     // "topic", last value
//		Jokes    []string `state:"append"`  // appended
//		Scores   map[string]int `state:"merge"`
//		Calls    int `state:"sum,name=n_calls"`
//		Messages []chat.Message `state:"messages"` // chat.Add, stored as deltas
//		Best     string `state:"reducer=longest"` // RegisterReducer("longest", …)
//		scratch  int                        // unexported: not in the schema
//		Note     string `state:"-"`         // left out
//	}
//
// A derived field behaves as the one Value, Append, Merge, Sum, Reduce or
// AppendReduce declares: the same checkpoints, deltas and errors. Writes
// to it are made with Schema.Edit; fields declared by hand (Value,
// Append, …) stay the explicit, typed API. What is wrong (an unknown
// tag word, a reducer that does not fit the field's type, an embedded
// field) is reported by Err and by the graph's Compile, naming the field
// and its tag.
func FromStruct[S any]() *Schema[S] {
	t := reflect.TypeFor[S]()
	if t.Kind() != reflect.Struct {
		sc := NewSchema[S]()
		sc.err = fmt.Errorf("state: FromStruct needs a struct type, not %s", t)
		return sc
	}
	var fields []Field[S]
	var errs []error
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, tagged := sf.Tag.Lookup("state")
		f, err := deriveField[S](t, sf, tag, tagged)
		switch {
		case err != nil:
			errs = append(errs, err)
		case f != nil:
			fields = append(fields, f)
		}
	}
	sc := NewSchema(fields...)
	sc.err = errors.Join(append(errs, sc.err)...)
	return sc
}

// deriveField returns the field sf declares, or nil when it is left out.
func deriveField[S any](t reflect.Type, sf reflect.StructField, tag string, tagged bool) (Field[S], error) {
	culprit := func(format string, args ...any) error {
		where := fmt.Sprintf("state: field %s of %s", sf.Name, t)
		if tagged {
			where += fmt.Sprintf(" (tag `state:%q`)", tag)
		}
		return fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
	sp, err := parseTag(tag)
	switch {
	case err != nil:
		return nil, culprit("%v", err)
	case sp.skip:
		return nil, nil
	case !sf.IsExported() && !tagged:
		return nil, nil
	case !sf.IsExported():
		return nil, culprit("the field is unexported: a schema field must be exported (or tagged `state:\"-\"`)")
	case sf.Anonymous:
		return nil, culprit("an embedded field cannot be a schema field: name it, or tag it `state:\"-\"` and declare its fields by hand")
	}
	name := sp.name
	if name == "" {
		name = snakeCase(sf.Name)
	}
	ft := sf.Type
	o := &reflOps[S]{typ: ft, off: sf.Offset, name: name, kind: sp.kind}
	switch sp.kind {
	case KindAppend:
		if ft.Kind() != reflect.Slice {
			return nil, culprit("append needs a slice, not %s", ft)
		}
	case KindMerge:
		if ft.Kind() != reflect.Map {
			return nil, culprit("merge needs a map, not %s", ft)
		}
	case KindSum:
		if !isNumber(ft) {
			return nil, culprit("sum needs a number (an integer or a float), not %s", ft)
		}
	case KindCustom:
		r, ok := lookupReducer(sp.reducer)
		switch {
		case !ok && sp.reducer == "messages":
			return nil, culprit("no reducer named \"messages\" is registered: import github.com/stategraph/stategraph/chat, which registers it")
		case !ok:
			return nil, culprit("no reducer named %q is registered (state.RegisterReducer)", sp.reducer)
		case r.typ != ft:
			return nil, culprit("reducer %q reduces %s, but the field holds %s", sp.reducer, r.typ, ft)
		}
		o.named = &r
		if r.report != nil {
			o.kind = KindAppend // stored as an append field, as AppendReduce's
		}
	}
	b := &base[S]{name: name, kind: o.kind, ops: o}
	o.b = b
	return derived[S]{b}, nil
}

// derived is a Field made by FromStruct.
type derived[S any] struct{ b *base[S] }

func (d derived[S]) Name() string    { return d.b.name }
func (d derived[S]) Kind() Kind      { return d.b.kind }
func (d derived[S]) field() *base[S] { return d.b }

func isNumber(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// reflOps implements fieldOps for a field found by reflection, as keyOps
// does for a typed Key; the two must agree on every result.
type reflOps[S any] struct {
	typ   reflect.Type
	off   uintptr
	name  string
	kind  Kind
	named *namedReducer // KindCustom, or an append reducer's KindAppend
	b     *base[S]      // the field, for the writes diff makes
}

// at returns the field of s, addressable.
func (o *reflOps[S]) at(s *S) reflect.Value {
	return reflect.NewAt(o.typ, unsafe.Add(unsafe.Pointer(s), o.off)).Elem()
}

// value returns w's value as the field's type, as valueOf does.
func (o *reflOps[S]) value(w *Write[S]) (reflect.Value, error) {
	if w.value == nil {
		return reflect.Zero(o.typ), nil
	}
	v := reflect.ValueOf(w.value)
	if v.Type() == o.typ || (o.typ.Kind() == reflect.Interface && v.Type().Implements(o.typ)) {
		if v.Type() != o.typ {
			c := reflect.New(o.typ).Elem()
			c.Set(v)
			v = c
		}
		return v, nil
	}
	return reflect.Value{}, fmt.Errorf("%w: field %q holds %s, got a write of %T", ErrInvalidUpdate, o.name, o.typ, w.value)
}

func (o *reflOps[S]) apply(s *S, ws []*Write[S], private bool) (bool, error) {
	p := o.at(s)
	if o.kind == KindValue {
		v, err := o.value(ws[0])
		if err != nil {
			return false, err
		}
		p.Set(v)
		return false, nil
	}
	for _, w := range ws {
		if w.overwrite {
			v, err := o.value(w)
			if err != nil {
				return false, err
			}
			p.Set(v)
			return false, nil
		}
	}
	v := p
	if private && o.kind == KindAppend && v.Len() != v.Cap() {
		v = v.Slice3(0, v.Len(), v.Len())
	}
	rewrote := false
	for _, w := range ws {
		u, err := o.value(w)
		if err != nil {
			return false, err
		}
		if o.named != nil && o.named.report != nil {
			out, appended := o.named.report(v.Interface(), u.Interface())
			v, rewrote = o.fromAny(out), rewrote || !appended
			continue
		}
		v = o.reduce(v, u)
	}
	p.Set(v)
	return rewrote, nil
}

// fromAny is v, a reducer's result, as the field's type.
func (o *reflOps[S]) fromAny(v any) reflect.Value {
	if v == nil {
		return reflect.Zero(o.typ)
	}
	return reflect.ValueOf(v)
}

// reduce applies the field's reducer to old and update.
func (o *reflOps[S]) reduce(old, update reflect.Value) reflect.Value {
	switch {
	case o.named != nil:
		return o.fromAny(o.named.reduce(old.Interface(), update.Interface()))
	case o.kind == KindAppend:
		return reflect.AppendSlice(old, update)
	case o.kind == KindMerge:
		out := reflect.MakeMapWithSize(o.typ, old.Len()+update.Len())
		for _, m := range []reflect.Value{old, update} {
			it := m.MapRange()
			for it.Next() {
				out.SetMapIndex(it.Key(), it.Value())
			}
		}
		return out
	case o.kind == KindSum:
		return o.arith(old, update, false)
	}
	return update
}

// arith returns a+b, or a-b with minus.
func (o *reflOps[S]) arith(a, b reflect.Value, minus bool) reflect.Value {
	out := reflect.New(o.typ).Elem()
	switch a.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if minus {
			out.SetInt(a.Int() - b.Int())
		} else {
			out.SetInt(a.Int() + b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if minus {
			out.SetUint(a.Uint() - b.Uint())
		} else {
			out.SetUint(a.Uint() + b.Uint())
		}
	default:
		if minus {
			out.SetFloat(a.Float() - b.Float())
		} else {
			out.SetFloat(a.Float() + b.Float())
		}
	}
	return out
}

func (o *reflOps[S]) zero(s *S) { o.at(s).SetZero() }

func (o *reflOps[S]) length(s *S) int {
	if v := o.at(s); v.Kind() == reflect.Slice {
		return v.Len()
	}
	return 0
}

func (o *reflOps[S]) encode(s *S, c Codec) ([]byte, error) { return c.Marshal(o.at(s).Interface()) }

func (o *reflOps[S]) encodeTail(s *S, from int, c Codec) ([]byte, error) {
	rv := o.at(s)
	if rv.Kind() != reflect.Slice || from > rv.Len() {
		return nil, fmt.Errorf("state: field %q: no tail from %d", o.name, from)
	}
	return c.Marshal(rv.Slice(from, rv.Len()).Interface())
}

func (o *reflOps[S]) decode(s *S, snapshot []byte, deltas [][]byte, c Codec) error {
	if o.decodeJoined(s, snapshot, deltas, c) {
		return nil
	}
	v := reflect.New(o.typ)
	if err := c.Unmarshal(snapshot, v.Interface()); err != nil {
		return fmt.Errorf("state: field %q: %w", o.name, err)
	}
	acc := v.Elem()
	for i, d := range deltas {
		u := reflect.New(o.typ)
		if err := c.Unmarshal(d, u.Interface()); err != nil {
			return fmt.Errorf("state: field %q: delta %d: %w", o.name, i, err)
		}
		switch {
		case o.kind == KindAppend: // a delta holds appended elements only
			acc = reflect.AppendSlice(acc, u.Elem())
		case o.kind == KindValue:
			return fmt.Errorf("state: field %q: a last-value field has no deltas", o.name)
		default:
			acc = o.reduce(acc, u.Elem())
		}
	}
	o.at(s).Set(acc)
	return nil
}

// decodeJoined is keyOps.decodeJoined for a field found by reflection.
func (o *reflOps[S]) decodeJoined(s *S, snapshot []byte, deltas [][]byte, c Codec) bool {
	if o.kind != KindAppend {
		return false
	}
	if c.Unmarshal(jsonListProbe, reflect.New(o.typ).Interface()) != nil {
		return false
	}
	joined, ok := joinLists(snapshot, deltas)
	if !ok {
		return false
	}
	if v, ok := decodeElementsOf(o.typ, joined); ok {
		o.at(s).Set(v)
		return true
	}
	v := reflect.New(o.typ)
	if c.Unmarshal(joined, v.Interface()) != nil {
		return false
	}
	o.at(s).Set(v.Elem())
	return true
}

func (o *reflOps[S]) decodeValue(data []byte, c Codec) (any, error) {
	v := reflect.New(o.typ)
	err := c.Unmarshal(data, v.Interface())
	if err != nil && o.named != nil && o.named.one != nil && !isJSONList(data) {
		e := reflect.New(o.named.one)
		if oneErr := c.Unmarshal(data, e.Interface()); oneErr != nil {
			return nil, fmt.Errorf("state: field %q: %w", o.name, oneErr)
		}
		return reflect.Append(reflect.Zero(o.typ), e.Elem()).Interface(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: field %q%s: %w", o.name, badElementOf(o.typ, data), err)
	}
	return v.Elem().Interface(), nil
}

func (o *reflOps[S]) equal(a, b *S) bool { return deepEqual(o.at(a), o.at(b)) }

func (o *reflOps[S]) diff(from, to *S) (Write[S], bool) {
	ra, rb := o.at(from), o.at(to)
	if deepEqual(ra, rb) {
		return Write[S]{}, false
	}
	b := o.b
	switch o.kind {
	case KindValue:
		return Write[S]{key: b, value: rb.Interface()}, true
	case KindSum:
		return Write[S]{key: b, value: o.arith(rb, ra, true).Interface()}, true
	case KindAppend:
		if tail, ok := appendedTail(ra, rb); ok {
			if !tail.IsValid() {
				return Write[S]{}, false
			}
			return Write[S]{key: b, value: tail.Interface()}, true
		}
	}
	return Write[S]{key: b, value: rb.Interface(), overwrite: true}, true
}

func (o *reflOps[S]) copyField(dst, src *S) { o.at(dst).Set(o.at(src)) }

func (o *reflOps[S]) copyPrefix(dst, src *S, n int) bool {
	rv := o.at(src)
	if rv.Kind() != reflect.Slice || n > rv.Len() {
		return false
	}
	o.at(dst).Set(rv.Slice3(0, n, n))
	return true
}

func (o *reflOps[S]) cloneSlice(s *S) {
	rv := o.at(s)
	if rv.Kind() != reflect.Slice || rv.IsNil() {
		return
	}
	c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	reflect.Copy(c, rv)
	rv.Set(c)
}
