// Package worker runs graphs as River jobs on PostgreSQL, so that many
// worker processes on many machines share the runs of one database, and a
// run a dead worker left behind is finished by another from its last
// checkpoint.
//
// # Registering graphs
//
// Graphs are generic over their state; a Registry holds them by name with
// the type erased, one line per graph:
//
//	reg := worker.NewRegistry()
//	worker.Register(reg, "essay", app, worker.JSONInput(func(in EssayInput) (state.Update[Essay], error) {
//		return state.Writes(topic.Set(in.Topic)), nil
//	}))
//
// The graph must be compiled with a checkpointer on the same database
// (checkpoint/postgres). A run's input travels as JSON and becomes the
// graph's update through the InputFunc; its final state is stored as JSON
// (WithOutput shapes it).
//
// # Runs
//
// A Client enqueues runs (Enqueue, or EnqueueTx inside the caller's own
// pgx transaction) and, with a Registry, works them once started. A run
// is a River job of kind "stategraph_run" (RunArgs) plus a row in
// stategraph_runs, inserted in one transaction. A Request starts or
// continues a thread with an input, resumes it with none, or answers its
// pending interrupt (Resume, ResumeByID). Run reads a run's status,
// result and error; Follow yields its checkpoints and status changes from
// any process; Wait waits for its end; Cancel cancels it.
//
// # One writer per thread
//
// Before it runs the graph, an execution takes the thread: under a
// transaction-scoped advisory lock on the thread it checks the thread's
// other active runs, and either marks its own run running or, per the
// run's Strategy, fails it (Reject), waits (Enqueue), or cancels the runs
// ahead of it through River's job cancellation and waits until they have
// stopped (Interrupt), then also undoes their work (Rollback). A waiting
// run's job sleeps until the run ahead of it ends, whose last statement
// wakes the thread's next run: nothing polls the thread. Runs of a thread
// are ordered by when they were enqueued; a thread may have WithMaxQueued
// pending runs (ErrQueueFull past it). The record is only the arbiter of who
// should run; the guarantees are the thread's lease, which the graph
// runtime takes before a run stores anything, so a second writer (a
// process invoking the graph directly) is refused with checkpoint.ErrBusy
// (which also matches checkpoint.ErrConflict), and the checkpointer's
// compare-and-set on the thread's head, so a writer that got past the
// lease gets checkpoint.ErrConflict and never forks the thread. A run that
// meets a lease held by a writer the queue does not know fails (Reject) or
// waits for it (the other strategies); the worker that re-queues a dead
// worker's runs frees the leases they left (checkpoint.LeaseBreaker), so
// the takeover does not wait for them to expire.
//
// # Failures
//
// Every started worker refreshes its row in stategraph_workers every
// heartbeat; any live worker re-queues the runs of a worker silent for
// longer than the dead-after limit (WithHeartbeat: 2 s and 8 s by
// default), as new River jobs. A run is never cut off for being long (its
// job has no timeout unless WithRunTimeout sets one), only re-queued when
// its worker goes silent. River retries a job that failed.
// Every execution runs the graph on the thread with the run's id in the
// checkpoints' metadata (graph.WithRunID). An execution that is not the
// run's first looks for a checkpoint of the run: if there is one, the
// input was applied (or the interrupt answered) already, and it continues
// the thread with a zero input from its last checkpoint, re-running only
// the tasks whose writes were not saved. An input is never applied twice.
//
// Errors of the database or the network, timeouts and shutdowns are
// transient: the run goes back to pending with the error and River
// retries it. A node's failure (after its own retry policy), a routing
// error, a recursion limit, corrupt data or a bad input end the run with
// StatusError and cancel the job: retrying would fail the same way.
//
// # Events
//
// While someone follows a run (Follow records itself in
// stategraph_followers), each status change sends a NOTIFY in the
// statement that makes it, and each checkpoint one after it is saved, on a
// channel of the run; runs nobody follows send none. Follow listens on it
// but reads the run's row and checkpoints as the source of truth, polling
// as well, since notifications are best effort.
//
// # A bound across the fleet
//
// WithWorkers bounds one process's runs at once; WithFleetLimit bounds the
// runs of every Client of a queue together, so that adding processes does
// not over-subscribe the database. Its slots are PostgreSQL session
// advisory locks: a process that dies loses its session and the server
// frees its slots, which the other Clients take at their next balance.
//
// See docs/deployment.md for deploying many workers, and what is and is
// not guaranteed.
package worker
