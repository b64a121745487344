// Package mcp gives the agents of stategraph the tools of MCP servers
// (Model Context Protocol), through the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// Connect reaches one server — a command spoken to over stdio, a
// streamable HTTP endpoint, or any SDK transport — and Client.Tools
// returns its tools as langchaingo tools.Tool values, the type both
// agents take: the prebuilt chat agent (package chat/agent and
// chat/toolnode) and the plan-and-execute agent (package nodes). Each
// tool is a *Tool: it has the server's name and description, and its
// input JSON Schema (InputSchema, so the chat agent offers it to the
// model as the tool's parameters and the planner shows it in its
// prompt); it reports side effects from the tool's MCP annotations
// (SideEffects is true unless readOnlyHint says otherwise, the
// plan.SideEffecter that plan.ReadOnlyGuard reads; Annotations has the
// destructive and idempotent hints). InputGuard checks, before anything
// runs, that each plan step naming an MCP tool has an input its schema
// accepts, so a planner is asked again instead of a step failing.
//
// A call checks its input against the schema (required fields, types,
// enums and unknown fields, in nested objects and arrays too; a bad input
// is an error matching plan.ErrBadInput that names the field by its path,
// "trip.stops[1].name"), then calls the tool
// with a per-call timeout (WithCallTimeout, default DefaultCallTimeout).
// Every failure is an error that names the server and the tool, never a
// panic or a hung run: the chat agent's tool node answers it with a tool
// message the model reads, and the plan-and-execute agent records a
// failed step for its replanner. A tool's own failure (an isError
// result) is a *ToolError; a JSON-RPC error is returned wrapped; a server
// that cannot be reached, or that dies during a call, is ErrServerDown
// (a call that was under way may or may not have taken effect), and the
// next call — in this run, or in the resume of a run that stopped on
// it — starts a new connection.
//
// A call made in a graph node whose run streams graph.Custom asks the
// server for progress, and each report reaches that stream as a Progress.
//
// The tool list follows the server: on notifications/tools/list_changed
// the client lists the tools again. A *Tool already handed to an agent
// reads its definition (description, schema, annotations) from the
// latest list, and calling a tool the server no longer offers is an
// error; a tool the server adds is in the next Client.Tools. The chat
// agent follows the list as it changes (agent.WithToolSource, given a
// function that returns Client.Tools); the plan-and-execute agent takes
// its tool list when it is built, and WithToolsChanged tells when to
// build it again.
//
// A Client also lists and reads the server's resources (Resources,
// ReadResource) and lists and fills in its prompt templates (Prompts,
// GetPrompt), for a program to use; the agents do not see them.
//
// What is not supported: resource templates and subscriptions, sampling,
// elicitation and roots beyond the SDK's defaults; a tool's structured output is
// passed on as JSON text, and images, audio and resources in a result
// are described, not passed to the model.
package mcp
