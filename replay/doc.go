// Package replay records the model and tool calls of a run with its
// thread, and replays the thread offline, deterministically, reporting
// the first place where the replay departs from the recording.
//
// Wrap a graph's model with Model and its tools with Tool. When the graph
// runs with a checkpointer, each call is stored with the thread as a
// record of the task that made it (graph.Record): request, response or
// error, when it started, how long it took and the tokens it used — one
// extra write per call, through the checkpointer, so encrypted when it
// encrypts. Load reads a thread's recording.
//
// Run takes a graph — the same, or one with a changed prompt, node or
// tool — and a recorded thread, runs the graph on the thread's inputs in a
// fresh in-memory checkpointer with the wrapped models and tools answered
// from the recording (no network, no keys), and compares every call and
// every step's nodes and state with the recording. The Report lists the
// divergences, first the earliest, each with a line diff. A call the
// recording does not have fails with ErrUnrecorded, or goes to a live or
// scripted model (WithLiveModel) or to the real tool (WithLiveTools).
// docs/replay.md tells the whole story.
package replay
