// Package history keeps a long conversation within a model's context, as
// opt-in steps: Trim chooses the recent window of a history (by messages
// and by tokens, never starting on a tool answer whose call it cut off);
// TrimNode deletes what falls outside it from the state (with chat.Remove
// markers); SummarizeNode replaces it with a summary the model writes.
//
// To trim only what a model is sent, leaving the state whole, give a
// Window to the prebuilt agent (agent.WithTrim) or call Trim in your own
// model node.
package history
