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
// State.ModelCalls counts every model call of the thread. WithReview makes the tool calls it selects wait
// for a human decision in a review node before the tools
// (toolnode.ReviewNode: a toolnode.Review, answered with
// []toolnode.Decision).
//
// New returns an Agent whose Graph is an ordinary *graph.StateGraph: add
// nodes, compile it with a checkpointer, stream it, draw it. Build does the
// same over your own state, given its keys. The agent node streams tokens
// with graph.StreamingFunc when the run streams Messages: each event
// carries the bytes with node and step, and the id of the AI message they
// become (Event.MessageID).
package agent
