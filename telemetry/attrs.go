package telemetry

import "go.opentelemetry.io/otel/attribute"

// Attribute keys of the spans, metrics and log records of this package.
// Each is namespaced "stategraph."; model and tool calls use the GenAI
// semantic conventions (gen_ai.*) instead. docs/observability.md lists
// which span carries which.
const (
	// KeyGraph is the graph's name (graph.WithName), on runs and on the
	// run, step and task metrics.
	KeyGraph = attribute.Key("stategraph.graph.name")
	// KeyThread is the run's thread.
	KeyThread = attribute.Key("stategraph.thread.id")
	// KeyRun is the call's run id (graph.WithRunID, or a new UUIDv7).
	KeyRun = attribute.Key("stategraph.run.id")
	// KeyNamespace is the checkpoint namespace of a subgraph's run, step,
	// task or checkpoint ("" for the top graph, then left out).
	KeyNamespace = attribute.Key("stategraph.namespace")
	// KeyParentNode is the parent's node that runs a subgraph's run.
	KeyParentNode = attribute.Key("stategraph.parent.node")
	// KeyFrom is the checkpoint a run started from.
	KeyFrom = attribute.Key("stategraph.checkpoint.from")
	// KeyCheckpoint is a checkpoint's id: the last a run stored (run
	// span), the one a task's step runs after (task span), the one being
	// written (checkpoint span).
	KeyCheckpoint = attribute.Key("stategraph.checkpoint.id")
	// KeySteps is how many supersteps a run ran.
	KeySteps = attribute.Key("stategraph.run.steps")
	// KeyOutcome is how a run or a task ended: success, interrupted,
	// error or cancelled.
	KeyOutcome = attribute.Key("stategraph.outcome")
	// KeyStep is a superstep's number (the first node runs in step 1).
	KeyStep = attribute.Key("stategraph.step")
	// KeyStepNodes names a step's tasks, in task order.
	KeyStepNodes = attribute.Key("stategraph.step.nodes")
	// KeyStepRestored counts a step's tasks that kept the writes an
	// earlier call saved and did not run again.
	KeyStepRestored = attribute.Key("stategraph.step.restored")
	// KeyNode is a task's node.
	KeyNode = attribute.Key("stategraph.node")
	// KeyTask is a task's id (the same when it runs again after a crash).
	KeyTask = attribute.Key("stategraph.task.id")
	// KeySend is a task's position among its step's Sends.
	KeySend = attribute.Key("stategraph.task.send")
	// KeyAttempts is how many times a task's node ran (retries included).
	KeyAttempts = attribute.Key("stategraph.task.attempts")
	// KeyRetries is KeyAttempts less one.
	KeyRetries = attribute.Key("stategraph.task.retries")
	// KeyWrites is how many field writes a task made.
	KeyWrites = attribute.Key("stategraph.task.writes")
	// KeyAttempt is the try of a node a log record was written in.
	KeyAttempt = attribute.Key("stategraph.task.attempt")
	// KeySource is a checkpoint's source: input, loop, update or fork.
	KeySource = attribute.Key("stategraph.checkpoint.source")
	// KeySaver is the checkpointer's type, such as "sqlite.Saver".
	KeySaver = attribute.Key("stategraph.checkpoint.saver")
	// KeyBytes is the size of the encoded values a checkpoint stores.
	KeyBytes = attribute.Key("stategraph.checkpoint.bytes")
	// KeyChannels is how many values a checkpoint stores.
	KeyChannels = attribute.Key("stategraph.checkpoint.channels")
	// KeyDurability is the run's durability mode: sync, async or exit.
	KeyDurability = attribute.Key("stategraph.durability")
	// KeyInterruptID, KeyInterruptWhen and KeyInterruptValue describe an
	// interrupt (events named EventInterrupt).
	KeyInterruptID    = attribute.Key("stategraph.interrupt.id")
	KeyInterruptWhen  = attribute.Key("stategraph.interrupt.when")
	KeyInterruptValue = attribute.Key("stategraph.interrupt.value")
	// KeyLink says what a span link points at: LinkPreviousRun.
	KeyLink = attribute.Key("stategraph.link")
)

// Event names and link kinds.
const (
	// EventInterrupt is the event a task span (or, for a static interrupt
	// before or after a node, the run span) gets for each interrupt.
	EventInterrupt = "stategraph.interrupt"
	// LinkPreviousRun is the KeyLink value of the link from a run to the
	// run of the same thread whose checkpoint it continued.
	LinkPreviousRun = "previous_run"
)

// Outcomes, the values of KeyOutcome.
const (
	OutcomeSuccess     = "success"
	OutcomeInterrupted = "interrupted"
	OutcomeError       = "error"
	OutcomeCancelled   = "cancelled"
)
