// Package state declares a graph's typed state: a schema over the user's
// own struct S in which every field is a channel with a stable name, a typed
// accessor and a reducer.
//
// A field is declared once, with one line:
//
//	var (
//		Input = state.Value("input", func(s *Agent) *string { return &s.Input })
//		Steps = state.Append("steps", func(s *Agent) *[]string { return &s.Steps })
//		Calls = state.Sum("calls", func(s *Agent) *int { return &s.Calls })
//	)
//	schema := state.NewSchema(Input, Steps, Calls)
//
// Nodes never mutate the state they are given. They return an Update: a
// set of typed writes, each naming its field, so setting a field to its zero
// value is as expressible as any other write (Input.Set("") clears Input).
// The runtime applies the writes of a step through each field's reducer:
//
//   - Value keeps the last value; two writes to it in one step are an error
//     (ErrInvalidUpdate) that names the field and both writers.
//   - Append appends slices, Merge merges maps (later keys win), Sum adds,
//     Reduce applies a custom func(old, update T) T.
//   - Overwrite replaces a reducer field's value for the step, ignoring the
//     other writes to it in that step; two overwrites are an error.
//
// A schema can also be derived from the struct's tags (FromStruct): each
// exported field is a field of the schema, named in snake_case and reduced
// as its `state` tag says (value, append, merge, sum, messages, or
// reducer=NAME for a reducer registered with RegisterReducer). Schema.Edit
// turns a node's changes to a copy of the state into the writes a node
// would make with the fields' keys, so a node over a derived schema needs
// no key at all:
//
//	type Agent struct {
//		Input string
//		Steps []string `state:"append"`
//		Calls int      `state:"sum"`
//	}
//	schema := state.FromStruct[Agent]()
//	… return schema.Edit(s, func(s *Agent) { s.Steps = append(s.Steps, "done"); s.Calls++ }), nil
//
// The derived fields store and read exactly what the declared ones do.
//
// Writes are serializable: each encodes as its field's name and its value,
// so the runtime can persist them as pending writes and replay them after a
// crash. The package imports nothing else of stategraph.
package state
