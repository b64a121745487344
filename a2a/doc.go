// Package a2a serves the Agent2Agent (A2A) protocol, version 0.3, over
// JSON-RPC 2.0 on HTTP: the protocol's wire types (AgentCard, Message,
// Part, Task, the streaming events) and Handler, which answers
// message/send, message/stream (Server-Sent Events), tasks/get and
// tasks/cancel by calling an Agent. It knows nothing of graphs: package
// server maps each assistant onto an Agent (a context is a thread, a task
// a run, an interrupt the input-required state) at /a2a/{assistant_id}.
//
// The official A2A Go SDK is not used because it is not available to this
// module; the types follow the A2A 0.3 specification's JSON schema.
package a2a
