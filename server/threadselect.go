package server

import (
	"fmt"
	"slices"
	"strings"
)

// threadSelectable is the fields of a thread that POST /threads/search's
// select may name: those of LangGraph's JS client (ThreadSelectField) and
// error. The server keeps no thread context, so "context" selects
// nothing.
var threadSelectable = []string{
	"thread_id", "created_at", "updated_at", "state_updated_at", "metadata",
	"config", "context", "status", "values", "interrupts", "error",
}

// threadFields is a set of thread fields; nil holds every field.
type threadFields map[string]bool

func (f threadFields) has(name string) bool { return f == nil || f[name] }

// parseSelect is the fields a search's select names (nil when it names
// none: every field), or an *InputError naming a field a thread does not
// have.
func parseSelect(sel []string) (threadFields, error) {
	if len(sel) == 0 {
		return nil, nil
	}
	f := make(threadFields, len(sel))
	for _, name := range sel {
		if !slices.Contains(threadSelectable, name) {
			return nil, &InputError{Field: "select", Err: fmt.Errorf("a thread has no field %q (it has %s)", name, strings.Join(threadSelectable, ", "))}
		}
		f[name] = true
	}
	return f, nil
}
