package checkpoint

import (
	"encoding/json"
	"strings"
)

// Schedule is what a checkpoint says runs in the next step: the value of
// NextChannel.
type Schedule struct {
	// Nodes are the nodes scheduled by edges, sorted by name.
	Nodes []string `json:"nodes,omitempty"`
	// Sends are the tasks scheduled by Send, in order, each with its own
	// input.
	Sends []ScheduledSend `json:"sends,omitempty"`
	// Joins maps a join (JoinKey) to the sources that have finished.
	Joins map[string][]string `json:"joins,omitempty"`
}

// ScheduledSend is one task scheduled by Send, in a Schedule or as the
// value of a SendChannel write.
type ScheduledSend struct {
	// Node is the node the Send runs.
	Node string `json:"node"`
	// Arg is the input, field by field, each encoded by the graph's
	// serializer.
	Arg map[string][]byte `json:"arg"`
	// Full is the whole input, when the serializer could encode it: an
	// input may carry fields the schema does not track.
	Full []byte `json:"full,omitempty"`
	// Item is the argument of a Send to a node that takes its own type
	// (graph.SendArg), encoded as JSON; Arg is then empty.
	Item json.RawMessage `json:"item,omitempty"`
}

// JoinKey names a join of a graph in a Schedule: its sources, comma
// separated, then ">" and its destination ("a,b>c").
func JoinKey(srcs []string, dst string) string { return strings.Join(srcs, ",") + ">" + dst }

// Done reports whether nothing is scheduled: the thread finished.
func (s Schedule) Done() bool { return len(s.Nodes) == 0 && len(s.Sends) == 0 }

// AppendSchedule appends the encoding of s to dst and returns it. A
// schedule of nodes only is written without encoding/json, as the list of
// its nodes, ["a","b"] (or {} when empty), so a step of a long run does
// not allocate for it and stores ten bytes less than the object
// {"nodes":["a","b"]} that earlier versions wrote (ParseSchedule reads
// both); anything else is encoding/json's form of Schedule.
func AppendSchedule(dst []byte, s Schedule) ([]byte, error) {
	if len(s.Sends) > 0 || len(s.Joins) > 0 {
		data, err := json.Marshal(s)
		if err != nil {
			return dst, err
		}
		return append(dst, data...), nil
	}
	if len(s.Nodes) == 0 {
		return append(dst, "{}"...), nil
	}
	for _, n := range s.Nodes {
		if !plainName(n) {
			data, err := json.Marshal(s.Nodes)
			if err != nil {
				return dst, err
			}
			return append(dst, data...), nil
		}
	}
	dst = append(dst, '[')
	for i, n := range s.Nodes {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(append(dst, '"'), n...), '"')
	}
	return append(dst, ']'), nil
}

// plainName reports whether a node name is written in JSON as itself
// between quotes: printable ASCII without a quote or a backslash.
func plainName(n string) bool {
	for i := 0; i < len(n); i++ {
		if c := n[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// ParseSchedule decodes a schedule written by AppendSchedule, in either
// form of a schedule of nodes only.
func ParseSchedule(data []byte) (Schedule, error) {
	if nodes, ok := parseNodesOnly(data); ok {
		return Schedule{Nodes: nodes}, nil
	}
	var s Schedule
	if len(data) > 0 && data[0] == '[' {
		err := json.Unmarshal(data, &s.Nodes)
		return s, err
	}
	err := json.Unmarshal(data, &s)
	return s, err
}

// parseNodesOnly reads the common schedule that AppendSchedule writes by
// hand — {}, ["a","b"] or, as earlier versions wrote it,
// {"nodes":["a","b"]}, with plain names — without encoding/json. It
// reports false for anything else.
func parseNodesOnly(data []byte) ([]string, bool) {
	s := string(data)
	if s == "{}" {
		return nil, true
	}
	body, ok := strings.CutPrefix(s, `[`)
	if ok {
		body, ok = strings.CutSuffix(body, `]`)
	} else if body, ok = strings.CutPrefix(s, `{"nodes":[`); ok {
		body, ok = strings.CutSuffix(body, `]}`)
	}
	if !ok || body == "" {
		return nil, false
	}
	names := strings.Split(body, ",")
	for i, q := range names {
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' || strings.ContainsAny(q[1:len(q)-1], `"\`) {
			return nil, false
		}
		names[i] = q[1 : len(q)-1]
	}
	return names, true
}
