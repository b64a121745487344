// Package a2a serves the Agent2Agent (A2A) protocol, version 0.3, over
// JSON-RPC 2.0 on HTTP: the protocol's wire types (AgentCard, Message,
// Part, Task, the streaming events) and Handler, which answers
// message/send, message/stream (Server-Sent Events), tasks/get and
// tasks/cancel by calling an Agent. It knows nothing of graphs: package
// server maps each assistant onto an Agent (a context is a thread, a task
// a run, an interrupt the input-required state) at /a2a/{assistant_id}.
//
// The other way round, Client calls a remote A2A agent, and Node makes a
// graph node of one: it sends a message, follows the task, turns
// input-required into the caller's interrupt and sends the caller's answer
// back in the same task and context, and records each message it sent
// (graph.Durable), so a caller resumed after a crash follows the task it
// started instead of starting another.
//
// The official A2A Go SDK is not used because it is not available to this
// module; the types follow the A2A 0.3 specification's JSON schema.
package a2a
