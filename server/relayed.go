package server

import (
	"encoding/json"
	"fmt"
)

// relayedEvent is the Nested payload of an event a node relays from a
// graph another server ran (remote.Event): its data is already the wire's
// JSON, in the remote graph's own fields, so it is sent as it came
// instead of being encoded in the caller's state type.
type relayedEvent interface{ RawPayload() json.RawMessage }

// relayedUpdate takes a relayed updates event's data, {node: update} as
// the remote server sent it, and returns the update of node, which the
// stream wraps in {node: …} again.
func relayedUpdate(node string, data json.RawMessage) (json.RawMessage, error) {
	var byNode map[string]json.RawMessage
	if err := json.Unmarshal(data, &byNode); err != nil {
		return nil, fmt.Errorf("relayed updates event of node %q: %w", node, err)
	}
	u, ok := byNode[node]
	if !ok || len(byNode) != 1 {
		return nil, fmt.Errorf("relayed updates event of node %q: data has no update of that node alone", node)
	}
	return u, nil
}
