// Package toolnode runs the tool calls a model asked for: New is
// LangGraph's ToolNode, Condition its tools_condition router, Definitions
// the tools as a model is offered them (bind_tools).
//
// The node reads the last message of a chat.Messages field; when it is an
// AI message with tool calls, it runs them concurrently (at most
// DefaultMaxParallel at once unless WithMaxParallel says otherwise) and
// writes one tool message per call, in the order of the calls whatever
// order they finish in. A tool that fails or panics, or a call of a tool
// that does not exist, is answered with a tool message the model can read
// and correct itself from (WithErrorHandler changes the text, or makes the
// failure fail the node).
//
// Dispatch is the router of LangGraph's version 2: it sends each call of
// the AI message to the node as a task of its own (graph.Send), so the
// runtime saves each call's tool message when its task finishes and a
// resume — after one call's interrupt or failure, a crash, a cancel — runs
// only the calls that had not finished. Condition sends the whole message
// to one task instead.
//
// Human review of tool calls is a node of its own before the tools:
// ReviewNode calls graph.Interrupt once with a Review listing the calls
// its selector picks (ReviewAll, ReviewTools), and the run stops. Resume
// it with a []Decision, one per listed call in order: Approve runs the
// call, Edit runs it with other arguments (and rewrites the call in the AI
// message, so the history shows what ran), Reject answers it with the
// reviewer's reason instead of running it. It then sends each call to the
// tools node as a task of its own, as Dispatch does; no tool runs before
// every listed call is decided. Route to it when NeedsReview says so (the
// prebuilt agent's HumanReview middleware does exactly this).
//
// WithCallHook wraps each call (to refuse it by policy, bound it, audit it,
// judge its result), and Run does the node's work as a plain function, for
// a loop that runs tools inside a node of its own.
package toolnode
