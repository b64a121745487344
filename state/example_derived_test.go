package state_test

import (
	"fmt"

	"github.com/stategraph/stategraph/state"
)

// Poll's schema comes from its struct tags: no accessor per field.
type Poll struct {
	Question string
	Votes    []string       `state:"append"`
	Tally    map[string]int `state:"merge"`
	Rounds   int            `state:"sum"`
}

// FromStruct derives the schema; Edit turns a node's changes to a copy of
// the state into writes through the fields' reducers.
func ExampleFromStruct() {
	schema := state.FromStruct[Poll]()
	if err := schema.Err(); err != nil {
		panic(err)
	}
	for i := range schema.Len() {
		fmt.Printf("%s:%s\n", schema.Name(i), schema.Kind(i))
	}

	p := Poll{Question: "tabs?", Tally: map[string]int{"yes": 1}}
	a := schema.NewApplier()
	// Two voters in one step: their appends and merges combine.
	_ = a.Add("alice", schema.Edit(p, func(p *Poll) {
		p.Votes = append(p.Votes, "yes")
		p.Tally["yes"]++
		p.Rounds++
	}).Writes)
	_ = a.Add("bob", schema.Edit(p, func(p *Poll) { p.Votes = append(p.Votes, "no"); p.Tally["no"] = 1 }).Writes)
	if _, err := a.Apply(&p, false); err != nil {
		panic(err)
	}
	fmt.Println(p.Votes, p.Tally, p.Rounds)
	// Output:
	// question:value
	// votes:append
	// tally:merge
	// rounds:sum
	// [yes no] map[no:1 yes:2] 1
}

// Registered once, in an init function.
func init() {
	state.RegisterReducer("example.max", func(old, update int) int { return max(old, update) })
}

// A reducer registered by name (in an init function:
// state.RegisterReducer("example.max", func(old, update int) int { return max(old, update) }))
// is chosen by a field's tag; Edit writes the new value through it.
func ExampleRegisterReducer() {
	type Race struct {
		Best int `state:"reducer=example.max"`
	}
	schema := state.FromStruct[Race]()
	r := Race{Best: 7}
	a := schema.NewApplier()
	_ = a.Add("lap", schema.Edit(r, func(r *Race) { r.Best = 5 }).Writes)
	_, err := a.Apply(&r, false)
	fmt.Println(r.Best, err)
	// Output: 7 <nil>
}
