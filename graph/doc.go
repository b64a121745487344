// Package graph runs explicit state-machine graphs over a typed state, in
// the style of LangGraph: nodes read the state and return updates, edges
// say what runs next, and a checkpointer makes every run resumable.
//
// # Building
//
// A StateGraph is built over a state.Schema. AddNode adds a node, a
// NodeFunc that receives the state by value and returns a state.Update.
// AddEdge runs one node after another; AddJoin runs a node once all of its
// sources have finished; AddConditionalEdges routes with a Router whose
// possible targets are declared; a node may also return Goto and Sends in
// its Update (LangGraph's Command and Send). Compile checks the graph and
// reports every problem it finds by name: unknown nodes in edges, a
// missing entry, reserved or duplicate names, undeclared router targets,
// and, once those are fixed, unreachable nodes.
//
// # Running
//
// A run proceeds in supersteps, as in Pregel. The tasks of a step (the
// nodes its edges triggered, each at most once, and each Send) run
// concurrently; their writes are invisible to one another and are applied
// when all have finished, in a fixed order — nodes by name, then Sends by
// index — never the order in which they finished. Each field's reducer
// combines the writes (see package state). A run stops when nothing is
// scheduled, when it reaches its recursion limit (ErrRecursionLimit), when
// a node fails (a *NodeError, after the node's RetryPolicy), or when its
// context is cancelled. A panicking node becomes a *NodeError with its
// stack.
//
// Invoke returns the final state. Stream yields events as an
// iter.Seq2[Event[S], error] in the chosen modes: Values, Updates, Tasks,
// Custom (Emit), Messages (StreamingFunc, for langchaingo's streaming),
// Checkpoints and Interrupts. Breaking out of the loop stops the run and
// waits for its tasks.
//
// # Checkpoints, time travel, human in the loop
//
// Compiled with WithCheckpointer, a graph saves a checkpoint for the input
// and after every step, and each task's writes as soon as the task
// finishes. Calls name a thread (WithThread). Invoking a thread with a
// zero input resumes it where it stopped — after an error, a crash or an
// interrupt — re-running only the tasks whose writes were not saved. State
// and History read a thread's snapshots; WithCheckpoint replays from a past
// checkpoint on a new branch; UpdateState edits the state as if a node had
// written it. Interrupt pauses a node for human input, and Resume answers
// it. One run at a time advances a thread, in any process: a run takes
// the thread's lease in the checkpoint database (a checkpoint.Leaser)
// before it stores anything and renews it while it runs (WithLease); a
// second run gets an error matching checkpoint.ErrBusy that names the
// holder (or waits, with WaitForThread), and savers check the thread's
// head on every write, so two processes can never fork a thread silently.
//
// # Effects
//
// A node runs again after a crash, an error or an interrupt. Durable keeps
// a result of the task so that its work is not done twice; Transact commits
// the node's own rows in the checkpoint database (a *sql.Tx or pgx.Tx, see
// Tx) in one transaction with that record, on savers that are a TxSaver;
// RunInfo's IdempotencyKey names the task's effects to the outside world.
// Package effect keeps a ledger of side-effecting tool calls over these;
// Record stores the records package replay makes of model and tool calls.
//
// # Drawing
//
// Mermaid returns the graph as Mermaid text in LangGraph's draw_mermaid
// format, without any network; MermaidPath draws the path a thread took.
package graph
