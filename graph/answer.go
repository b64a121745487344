package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// An Interrupt[T] tells what answer it expects: the JSON Schema of T
// (Interruption.Schema, "response_schema" in JSON), derived from T's
// Go type as encoding/json sees it. A resume value for it is checked
// against that schema before anything is stored, and refused, naming the
// field, when it does not fit (ErrInvalidAnswer). Without WithStrictAnswers
// an object may carry fields T does not have (encoding/json ignores
// them); with it they are refused too.

// answerSchemas caches the schema of each answer type.
var answerSchemas sync.Map // reflect.Type → json.RawMessage (nil: any answer fits)

// answerSchemaOf returns the JSON Schema of answers of type t, nil when
// any JSON value fits (an interface, json.RawMessage).
func answerSchemaOf(t reflect.Type) json.RawMessage {
	if v, ok := answerSchemas.Load(t); ok {
		return v.(json.RawMessage)
	}
	var raw json.RawMessage
	if s := schemaOfType(t, map[reflect.Type]bool{}); len(s) > 0 {
		raw, _ = json.Marshal(s)
	}
	answerSchemas.Store(t, raw)
	return raw
}

var (
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	timeType        = reflect.TypeFor[time.Time]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// schemaOfType is t's schema as a map; empty means anything fits.
func schemaOfType(t reflect.Type, seen map[reflect.Type]bool) map[string]any {
	switch {
	case t == rawMessageType:
		return nil
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(unmarshalerType):
		return nil // decodes itself: its form is its own
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := schemaOfType(t.Elem(), seen)
		if len(s) == 0 {
			return nil
		}
		if typ, ok := s["type"].(string); ok {
			s["type"] = []any{typ, "null"}
		}
		return s
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string", "contentEncoding": "base64"}
		}
		s := map[string]any{"type": "array"}
		if items := schemaOfType(t.Elem(), seen); len(items) > 0 {
			s["items"] = items
		}
		return s
	case reflect.Map:
		s := map[string]any{"type": "object"}
		if v := schemaOfType(t.Elem(), seen); len(v) > 0 {
			s["additionalProperties"] = v
		}
		return s
	case reflect.Struct:
		if seen[t] {
			return map[string]any{"type": "object"} // recursive: not followed again
		}
		seen[t] = true
		defer delete(seen, t)
		props := map[string]any{}
		var required []string
		for _, f := range structFields(t) {
			p := schemaOfType(f.typ, seen)
			if p == nil {
				p = map[string]any{}
			}
			props[f.name] = p
			if !f.omitempty && f.typ.Kind() != reflect.Pointer {
				required = append(required, f.name)
			}
		}
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return nil // interfaces and what JSON cannot hold: anything
}

type jsonField struct {
	name      string
	typ       reflect.Type
	omitempty bool
}

// structFields lists t's fields as encoding/json names them (embedded
// structs' fields promoted; "-" and unexported fields left out).
func structFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, structFields(ft)...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type, omitempty: slices.Contains(strings.Split(opts, ","), "omitempty") || slices.Contains(strings.Split(opts, ","), "omitzero")})
	}
	return out
}

// checkAnswer checks a resume value against an interrupt's schema. It
// returns the path of the first part that does not fit ("" for the whole
// answer) and why.
func checkAnswer(schema json.RawMessage, v any, strict bool) (path string, err error) {
	if len(schema) == 0 {
		return "", nil
	}
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return "", fmt.Errorf("unreadable schema: %w", err)
	}
	data, ok := v.(json.RawMessage)
	if !ok {
		if data, err = json.Marshal(v); err != nil {
			return "", fmt.Errorf("not JSON: %w", err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	return checkValue(s, doc, "", strict)
}

func checkValue(s map[string]any, v any, path string, strict bool) (string, error) {
	if len(s) == 0 {
		return "", nil
	}
	var types []string
	switch t := s["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok {
				types = append(types, str)
			}
		}
	}
	got := jsonType(v)
	fits := false
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			fits = true
		}
	}
	if !fits {
		return path, fmt.Errorf("want %s, got %s", strings.Join(types, " or "), describe(v, got))
	}
	switch v := v.(type) {
	case []any:
		items, _ := s["items"].(map[string]any)
		for i, x := range v {
			if p, err := checkValue(items, x, path+"["+strconv.Itoa(i)+"]", strict); err != nil {
				return p, err
			}
		}
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			if name, _ := r.(string); name != "" {
				if _, ok := v[name]; !ok {
					return joinPath(path, name), fmt.Errorf("missing")
				}
			}
		}
		extra, _ := s["additionalProperties"].(map[string]any)
		for _, k := range sortedKeys(v) {
			ps, known := props[k].(map[string]any)
			switch {
			case known:
			case extra != nil:
				ps = extra
			case props != nil && strict:
				return joinPath(path, k), fmt.Errorf("not a field of the answer (strict answers)")
			default:
				continue
			}
			if p, err := checkValue(ps, v[k], joinPath(path, k), strict); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		if f, err := v.Float64(); err == nil && f == float64(int64(f)) && !strings.ContainsAny(v.String(), ".eE") {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func describe(v any, typ string) string {
	switch v := v.(type) {
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return typ + " " + v.String()
	case bool:
		return fmt.Sprintf("boolean %v", v)
	}
	return typ
}
