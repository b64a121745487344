// Package agent is the prebuilt ReAct agent (LangGraph's
// create_react_agent) on any langchaingo llms.Model and tools:
//
//	__start__ → agent ⇄ tools,  agent → respond → __end__  (or agent → __end__)
//
// The agent node calls the model with the system prompt (WithPrompt; sent
// on every call, never stored) and the history, offering the tools; the
// toolnode.Dispatch router sends each of its tool calls to the tools node
// (package chat/toolnode) as a task of its own, as LangGraph's version 2
// does, so a resume runs only the calls that had not finished; their
// answers go back to the agent, until the model replies without tool
// calls. When the agent was made for a
// structured answer (New[T] with T other than NoResponse), the respond node
// then asks the model once more for the answer as a T — by a forced tool
// call whose parameters are T's JSON Schema, or in the model's JSON mode
// (WithStructuredMode) — and decodes it into State.Response.
//
// The model calls of a turn (the AI messages since the last human message)
// are bounded (WithMaxModelCalls, default DefaultMaxModelCalls), read from
// the state, so the bound holds across interrupts, resumes and processes:
// when it is reached, the agent adds an AI message saying so instead of
// calling the model, and the run ends (IsLimitStop reports it).
// State.ModelCalls counts every model call of the thread, State.ToolCalls
// every tool call.
//
// # Middleware
//
// WithMiddleware puts an ordered list of small types around the agent's
// model calls and tool calls (LangChain's agent middleware); the first is
// the outermost. Each implements Middleware — WrapModel and WrapTool,
// with Base as the pass-through to embed — and reports what it does with
// Record: a graph.Custom event in the stream and a Step in State.Steps,
// so it is in History too. The built-in ones:
//
//   - HumanReview: the tool calls it selects wait for a person's decision
//     in a review node (toolnode.ReviewNode), answered with
//     []toolnode.Decision.
//   - ModelFallback: other models tried in order when a call fails.
//   - CallLimit: model and tool calls bounded per run and per thread; the
//     run stops with a *LimitError naming the bound.
//   - ToolRetry: a failed tool call retried with backoff.
//   - ToolOutputLimit: a long tool result cut before it enters the
//     history, the whole kept in the long-term store.
//   - Redact: e-mail addresses, phone and card numbers (Luhn-checked)
//     replaced before the model sees them and before they are stored.
//   - Summarize: old turns past a token budget replaced by a summary kept
//     in the state.
//   - EditContext (and ClearToolResults): a hook that edits the messages
//     sent before each model call.
//
// # Handoffs and sub-agents
//
// A Handoff among the tools lets the model hand the conversation to
// another agent, a node of the graph the agent runs in as a subgraph
// (graph.ToParent); Agent.AsTool offers a whole agent to a supervisor as
// a tool, its conversation kept in a checkpoint namespace of its own.
//
// New returns an Agent whose Graph is an ordinary *graph.StateGraph: add
// nodes, compile it with a checkpointer, stream it, draw it. Build does the
// same over your own state, given its keys. The agent node streams tokens
// with graph.StreamingFunc when the run streams Messages: each event
// carries the bytes with node and step, and the id of the AI message they
// become (Event.MessageID).
package agent
