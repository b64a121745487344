package server

import "github.com/stategraph/stategraph/graph"

// Mode is the runtime's stream mode set (graph.Mode).
type Mode = graph.Mode

const (
	modeValues      = graph.Values
	modeUpdates     = graph.Updates
	modeTasks       = graph.Tasks
	modeCustom      = graph.Custom
	modeMessages    = graph.Messages
	modeCheckpoints = graph.Checkpoints
	modeInterrupts  = graph.Interrupts
)
