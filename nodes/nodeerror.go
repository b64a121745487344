package nodes

import "strings"

// nodeError is the error of one of the agent's nodes: "nodes: NODE: " and
// the cause, whose own "nodes: " prefixes (an error of this package
// wrapping another) are not repeated, so the message says each prefix once
// ("nodes: planner: plan rejected after 3 attempts: …", not "nodes:
// planner: nodes: plan rejected …"). errors.Is and errors.As see the cause.
type nodeError struct {
	node string
	err  error
}

func (e *nodeError) Error() string {
	msg := strings.TrimPrefix(e.err.Error(), "nodes: ")
	msg = strings.ReplaceAll(msg, ": nodes: ", ": ")
	return "nodes: " + e.node + ": " + msg
}

func (e *nodeError) Unwrap() error { return e.err }

// failNode returns err as node's error (nodeError).
func failNode(node string, err error) error { return &nodeError{node: node, err: err} }
