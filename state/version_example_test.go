package state_test

import (
	"encoding/json"
	"fmt"

	"github.com/stategraph/stategraph/state"
)

// A schema at version 2 with the migration from version 1: a field
// renamed, a type changed, a field added with a default. The graph
// applies it to every checkpoint version 1 wrote, when it reads one.
func ExampleSchema_Versioned() {
	type Ticket struct {
		Question string
		Priority int
		Owner    string
	}
	schema := state.NewSchema(
		state.Value("question", func(t *Ticket) *string { return &t.Question }),
		state.Value("priority", func(t *Ticket) *int { return &t.Priority }),
		state.Value("owner", func(t *Ticket) *string { return &t.Owner }),
	).Versioned(2, map[int]state.Migration{
		1: func(s *state.Stored) error {
			s.Rename("query", "question")
			if err := state.Convert(s, "priority", func(word string) (int, error) {
				return map[string]int{"low": 1, "high": 3}[word], nil
			}); err != nil {
				return err
			}
			return s.Default("owner", "triage")
		},
	})

	stored := state.Stored{Fields: map[string]json.RawMessage{
		"query":    json.RawMessage(`"new laptop"`),
		"priority": json.RawMessage(`"high"`),
	}}
	if err := schema.Migrate(1, &stored); err != nil {
		panic(err)
	}
	fmt.Println(string(stored.Fields["question"]), string(stored.Fields["priority"]), string(stored.Fields["owner"]))
	// Output: "new laptop" 3 "triage"
}
