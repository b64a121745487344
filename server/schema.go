package server

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"
	"github.com/stategraph/stategraph/state"
)

// Schemas are a graph's JSON schemas, as GET /assistants/{id}/schemas
// returns them. A run's input and the state are both objects keyed by the
// schema's field names.
type Schemas struct {
	Input  json.RawMessage
	Output json.RawMessage
	State  json.RawMessage
}

// schemasOf builds the state's JSON schema: one property per schema field,
// its type reflected from the Go struct field the schema's accessor
// reaches (found by copying that field alone into a zero state).
func schemasOf[S any](sc *state.Schema[S]) Schemas {
	return schemasOfValue(reflect.ValueOf(sc))
}

// schemasOfValue is schemasOf for a *state.Schema[T] of any T, held in
// sc (a subgraph's, whose T the server does not know).
func schemasOfValue(sc reflect.Value) Schemas {
	copyField := sc.MethodByName("CopyField")
	st := copyField.Type().In(0).Elem()
	probe := reflect.New(st)
	fill(probe.Elem(), 0)
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	props := map[string]any{}
	order := []string{}
	n := int(sc.MethodByName("Len").Call(nil)[0].Int())
	nameOf := sc.MethodByName("Name")
	for i := range n {
		dst := reflect.New(st)
		copyField.Call([]reflect.Value{dst, probe, reflect.ValueOf(i)})
		prop := any(map[string]any{})
		if f, ok := changedField(dst.Elem()); ok {
			prop = r.ReflectFromType(f.Type)
		}
		name := nameOf.Call([]reflect.Value{reflect.ValueOf(i)})[0].String()
		props[name] = prop
		order = append(order, name)
	}
	doc := map[string]any{
		"$schema":    "https://json-schema.org/draft/2020-12/schema",
		"type":       "object",
		"properties": props,
		"x-order":    order,
	}
	data, err := json.Marshal(doc)
	if err != nil {
		data = []byte(`{"type":"object"}`)
	}
	return Schemas{Input: data, Output: data, State: data}
}

// changedField returns the one top-level field of v that is not zero.
func changedField(v reflect.Value) (reflect.StructField, bool) {
	if v.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range v.NumField() {
		if !v.Field(i).IsZero() {
			return v.Type().Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// fill makes v non-zero, whatever its type, so a copy of it is seen.
func fill(v reflect.Value, depth int) {
	if depth > 3 || !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Complex64, reflect.Complex128:
		v.SetComplex(1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Chan:
		v.Set(reflect.MakeChan(v.Type(), 0))
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf("x"))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), depth+1)
		}
	case reflect.Array:
		if v.Len() > 0 {
			fill(v.Index(0), depth+1)
		}
	}
}
