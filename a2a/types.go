package a2a

import "encoding/json"

// ProtocolVersion is the A2A protocol version spoken here.
const ProtocolVersion = "0.3.0"

// AgentCard describes an agent: who it is, where to reach it and what it
// can do (A2A §5.5).
type AgentCard struct {
	ProtocolVersion    string            `json:"protocolVersion"`
	Name               string            `json:"name"`
	Description        string            `json:"description"`
	URL                string            `json:"url"`
	PreferredTransport string            `json:"preferredTransport"`
	Version            string            `json:"version"`
	Capabilities       AgentCapabilities `json:"capabilities"`
	DefaultInputModes  []string          `json:"defaultInputModes"`
	DefaultOutputModes []string          `json:"defaultOutputModes"`
	Skills             []AgentSkill      `json:"skills"`
}

// AgentCapabilities are the optional features an agent supports.
type AgentCapabilities struct {
	Streaming              bool `json:"streaming"`
	PushNotifications      bool `json:"pushNotifications"`
	StateTransitionHistory bool `json:"stateTransitionHistory"`
}

// AgentSkill is one thing an agent can do.
type AgentSkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
}

// Message is one turn of a conversation, from the user or the agent.
type Message struct {
	Kind      string         `json:"kind"` // always "message"
	MessageID string         `json:"messageId"`
	Role      string         `json:"role"` // "user" or "agent"
	Parts     []Part         `json:"parts"`
	ContextID string         `json:"contextId,omitempty"`
	TaskID    string         `json:"taskId,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// Part is a piece of a message or an artifact: Kind "text" with Text, or
// "data" with Data (a JSON value). File parts are not supported.
type Part struct {
	Kind     string          `json:"kind"`
	Text     string          `json:"text,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"`
	Metadata map[string]any  `json:"metadata,omitempty"`
}

// TextPart is a text part.
func TextPart(text string) Part { return Part{Kind: "text", Text: text} }

// DataPart is a data part holding v. A2A 0.3 wants an object there: any
// other JSON value is wrapped as {"value": v} with the metadata
// data_part_compat true, as the official SDKs do; Value unwraps it.
func DataPart(v json.RawMessage) Part {
	if isObject(v) {
		return Part{Kind: "data", Data: v}
	}
	wrapped, _ := json.Marshal(map[string]json.RawMessage{"value": v})
	return Part{Kind: "data", Data: wrapped, Metadata: map[string]any{DataPartCompat: true}}
}

// DataPartCompat is the metadata key that marks a data part wrapping a
// value that is not an object.
const DataPartCompat = "data_part_compat"

// Value is a data part's value: its data, unwrapped when DataPart
// wrapped it.
func (p Part) Value() json.RawMessage {
	if b, _ := p.Metadata[DataPartCompat].(bool); b {
		var w struct {
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(p.Data, &w) == nil && w.Value != nil {
			return w.Value
		}
	}
	return p.Data
}

func isObject(v json.RawMessage) bool {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}

// TaskState is where a task stands.
type TaskState string

// The task states of A2A 0.3.
const (
	StateSubmitted     TaskState = "submitted"
	StateWorking       TaskState = "working"
	StateInputRequired TaskState = "input-required"
	StateCompleted     TaskState = "completed"
	StateCanceled      TaskState = "canceled"
	StateFailed        TaskState = "failed"
	StateRejected      TaskState = "rejected"
)

// Final reports whether a task in state s will not change any more, or
// waits for the client (input-required): a stream ends there.
func (s TaskState) Final() bool {
	switch s {
	case StateSubmitted, StateWorking:
		return false
	}
	return true
}

// TaskStatus is a task's state, with the agent's message about it.
type TaskStatus struct {
	State     TaskState `json:"state"`
	Message   *Message  `json:"message,omitempty"`
	Timestamp string    `json:"timestamp,omitempty"`
}

// Artifact is an output of a task.
type Artifact struct {
	ArtifactID string `json:"artifactId"`
	Name       string `json:"name,omitempty"`
	Parts      []Part `json:"parts"`
}

// Task is a unit of work the agent does for a message.
type Task struct {
	Kind      string     `json:"kind"` // always "task"
	ID        string     `json:"id"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
	History   []Message  `json:"history,omitempty"`
}

// TaskStatusUpdateEvent is a streamed change of a task's status; Final is
// set on the stream's last event.
type TaskStatusUpdateEvent struct {
	Kind      string     `json:"kind"` // always "status-update"
	TaskID    string     `json:"taskId"`
	ContextID string     `json:"contextId"`
	Status    TaskStatus `json:"status"`
	Final     bool       `json:"final"`
}

// TaskArtifactUpdateEvent is a streamed artifact of a task.
type TaskArtifactUpdateEvent struct {
	Kind      string   `json:"kind"` // always "artifact-update"
	TaskID    string   `json:"taskId"`
	ContextID string   `json:"contextId"`
	Artifact  Artifact `json:"artifact"`
	LastChunk bool     `json:"lastChunk"`
}

// MessageSendParams are the parameters of message/send and
// message/stream.
type MessageSendParams struct {
	Message       Message                   `json:"message"`
	Configuration *MessageSendConfiguration `json:"configuration,omitempty"`
	Metadata      map[string]any            `json:"metadata,omitempty"`
}

// Blocking reports whether message/send should wait for the task to stop
// (the default) rather than answer at once.
func (p MessageSendParams) Blocking() bool {
	return p.Configuration == nil || p.Configuration.Blocking == nil || *p.Configuration.Blocking
}

// MessageSendConfiguration tunes message/send.
type MessageSendConfiguration struct {
	AcceptedOutputModes []string `json:"acceptedOutputModes,omitempty"`
	HistoryLength       *int     `json:"historyLength,omitempty"`
	Blocking            *bool    `json:"blocking,omitempty"`
}

// TaskQueryParams are the parameters of tasks/get.
type TaskQueryParams struct {
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength,omitempty"`
}

// TaskIDParams are the parameters of tasks/cancel.
type TaskIDParams struct {
	ID string `json:"id"`
}
