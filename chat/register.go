package chat

import "github.com/stategraph/stategraph/state"

// The reducer of a field tagged `state:"messages"` in a struct whose
// schema state.FromStruct derives: Add, stored as Messages stores it.
func init() { state.RegisterAppendReducer("messages", AddReport) }
