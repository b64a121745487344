package checkpoint

import (
	"encoding/json"
	"reflect"
)

// Flatten returns the metadata as the flat map that List filters match:
// "source", "step", "run_id" (when set) and every key of Extra, each value
// as a JSON round trip leaves it (numbers are float64). Parents and Nodes
// are not filterable.
func (m Metadata) Flatten() map[string]any {
	out := make(map[string]any, 3+len(m.Extra))
	for k, v := range m.Extra {
		out[k] = NormalizeFilterValue(v)
	}
	out["source"] = string(m.Source)
	out["step"] = float64(m.Step)
	if m.RunID != "" {
		out["run_id"] = m.RunID
	}
	return out
}

// Matches reports whether the metadata has every key of filter with an
// equal value. A nil or empty filter matches everything.
func (m Metadata) Matches(filter map[string]any) bool {
	if len(filter) == 0 {
		return true
	}
	flat := m.Flatten()
	for k, want := range filter {
		got, ok := flat[k]
		if !ok || !reflect.DeepEqual(got, NormalizeFilterValue(want)) {
			return false
		}
	}
	return true
}

// NormalizeFilterValue gives v the shape a JSON round trip gives it, as
// Matches compares filter values; backends that filter in their own query
// language use it to agree with Matches.
func NormalizeFilterValue(v any) any {
	switch x := v.(type) {
	case nil, string, bool, float64:
		return x
	case Source:
		return string(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return v
	}
	return out
}
