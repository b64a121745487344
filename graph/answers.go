package graph

// AnswersChannel is the channel of the pending write at AnswersIndex that
// a task resumed from interrupts saves with its writes when it finishes:
// the JSON list of the values it was resumed with, in order. The runtime
// never reads it back (a resume or a replay from a past checkpoint asks
// again as before); package replay reads it to give a replayed thread the
// answers the recorded one got.
const AnswersChannel = "__answers__"

// AnswersIndex is the index of an AnswersChannel write.
const AnswersIndex = -5
