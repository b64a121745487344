package state

import "reflect"

// Edit returns the update that makes s what fn makes of it: fn edits a
// copy of s (slices of append fields and maps of merge fields are its
// own, so appending to them or setting their keys leaves s alone), and
// each field that changed becomes one write, as a node would write it by
// hand:
//
//   - a last-value field: its new value (Set);
//   - an append field (a messages field too) that kept its elements and
//     grew: the elements appended (Set), through its reducer;
//   - a merge field that kept its keys: the entries added or changed;
//   - a sum field: the difference;
//   - a field with a custom reducer (Reduce, `state:"reducer=NAME"`): its
//     new value, through the reducer;
//   - anything else that changed (elements replaced or removed, keys
//     deleted): an Overwrite of the new value.
//
// A field left as it was is not written, so a last-value field set to
// the value it holds makes no write. A slice or map of a last-value field
// must be replaced, not changed in place: it is shared with s. Edit works
// on every schema, derived (FromStruct) or declared by hand:
//
//	return schema.Edit(s, func(s *Jokes) { s.Jokes = append(s.Jokes, joke) }), nil
//
// A node that receives no state (graph.AddArgNode) edits the zero state,
// Edit(Jokes{}, …): what it appends or adds is then its write.
func (sc *Schema[S]) Edit(s S, fn func(*S)) Update[S] {
	to := s
	for _, f := range sc.fields {
		switch f.kind {
		case KindAppend:
			f.ops.cloneSlice(&to)
		case KindMerge:
			if m := f.ops.at(&to); !m.IsNil() {
				m.Set(cloneMap(m))
			}
		}
	}
	fn(&to)
	var ws []Write[S]
	for _, f := range sc.fields {
		if f.kind == KindCustom {
			if !f.ops.equal(&s, &to) {
				ws = append(ws, Write[S]{key: f, value: f.ops.at(&to).Interface()})
			}
			continue
		}
		if f.kind == KindMerge {
			if w, kept := mergeDiff(f, f.ops.at(&s), f.ops.at(&to)); kept {
				if w.key != nil {
					ws = append(ws, w)
				}
				continue
			}
		}
		if w, ok := f.ops.diff(&s, &to); ok {
			ws = append(ws, w)
		}
	}
	return Update[S]{Writes: ws}
}

func cloneMap(m reflect.Value) reflect.Value {
	out := reflect.MakeMapWithSize(m.Type(), m.Len())
	it := m.MapRange()
	for it.Next() {
		out.SetMapIndex(it.Key(), it.Value())
	}
	return out
}

// mergeDiff returns the write of a merge field's entries that b added to
// a or changed (the zero Write when there are none), and false when b
// lost a key of a, which only an overwrite expresses.
func mergeDiff[S any](f *base[S], a, b reflect.Value) (Write[S], bool) {
	if deepEqual(a, b) {
		return Write[S]{}, true
	}
	changed := reflect.MakeMap(b.Type())
	it := a.MapRange()
	for it.Next() {
		if !b.MapIndex(it.Key()).IsValid() {
			return Write[S]{}, false
		}
	}
	it = b.MapRange()
	for it.Next() {
		old := a.MapIndex(it.Key())
		if !old.IsValid() || !reflect.DeepEqual(old.Interface(), it.Value().Interface()) {
			changed.SetMapIndex(it.Key(), it.Value())
		}
	}
	if changed.Len() == 0 {
		return Write[S]{}, true
	}
	return Write[S]{key: f, value: changed.Interface()}, true
}
