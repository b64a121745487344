// Drives a stategraph server with LangGraph's own JavaScript client.
// Run by server/sdk_test.go: node client.mjs URL. Exits non-zero, with the
// failed assertion on stderr, when the server answers otherwise than
// LangGraph's client expects.
import assert from "node:assert/strict";
import { Client } from "@langchain/langgraph-sdk";

const apiUrl = process.argv[2];
const client = new Client({ apiUrl, callerOptions: { maxRetries: 0 } });
const step = (name) => console.log(`ok ${name}`);

async function collect(iter) {
  const out = [];
  for await (const chunk of iter) out.push(chunk);
  return out;
}

// Assistants: one per graph, with its drawing and schema.
const assistants = await client.assistants.search({ limit: 10 });
const graphIds = assistants.map((a) => a.graph_id).sort();
assert.deepEqual(graphIds, ["echo", "gate", "review"]);
const review = await client.assistants.get("review");
assert.equal(review.graph_id, "review");
const drawing = await client.assistants.getGraph(review.assistant_id);
assert.deepEqual(drawing.nodes.map((n) => n.id), ["__start__", "write", "review", "__end__"]);
assert.ok(drawing.edges.some((e) => e.source === "write" && e.target === "review"));
const schemas = await client.assistants.getSchemas("review");
assert.deepEqual(Object.keys(schemas.state_schema.properties).sort(), ["approved", "draft", "notes", "topic"]);
step("assistants");

// A thread with metadata; a streamed run in values and updates.
const thread = await client.threads.create({ metadata: { user: "ann" } });
assert.equal(thread.status, "idle");
let created;
const chunks = await collect(
  client.runs.stream(thread.thread_id, "echo", {
    input: { input: "hi" },
    streamMode: ["values", "updates"],
    onRunCreated: (meta) => { created = meta; },
  }),
);
const events = chunks.map((c) => c.event);
assert.equal(events[0], "metadata");
assert.ok(events.includes("values") && events.includes("updates"), events.join(","));
assert.equal(created.thread_id, thread.thread_id);
assert.equal(chunks[0].data.run_id, created.run_id);
const update = chunks.find((c) => c.event === "updates");
assert.deepEqual(update.data, { respond: { replies: ["echo: hi"] } });
const lastValues = chunks.filter((c) => c.event === "values").at(-1);
assert.deepEqual(lastValues.data, { input: "hi", replies: ["echo: hi"] });
step("stream values+updates");

// State and history.
const st = await client.threads.getState(thread.thread_id);
assert.deepEqual(st.values.replies, ["echo: hi"]);
assert.deepEqual(st.next, []);
assert.equal(st.checkpoint.thread_id, thread.thread_id);
const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
assert.ok(history.length >= 3, `history of ${history.length}`);
assert.equal(history[0].checkpoint.checkpoint_id, st.checkpoint.checkpoint_id);
const inputs = await client.threads.getHistory(thread.thread_id, { metadata: { source: "input" } });
assert.equal(inputs.length, 1);
const past = await client.threads.getState(thread.thread_id, history[1].checkpoint.checkpoint_id);
assert.equal(past.checkpoint.checkpoint_id, history[1].checkpoint.checkpoint_id);
step("state and history");

// Update state as a node, then fork from a past checkpoint.
const updated = await client.threads.updateState(thread.thread_id, { values: { input: "edited" } });
assert.ok(updated.checkpoint.checkpoint_id);
const afterUpdate = await client.threads.getState(thread.thread_id);
assert.equal(afterUpdate.values.input, "edited");
assert.equal(afterUpdate.metadata.source, "update");
await client.threads.updateState(thread.thread_id, {
  values: { input: "forked" },
  checkpointId: st.checkpoint.checkpoint_id,
});
const forked = await client.threads.getState(thread.thread_id);
assert.equal(forked.values.input, "forked");
assert.equal(forked.parent_checkpoint.checkpoint_id, st.checkpoint.checkpoint_id);
step("update state and fork");

// An interrupt, seen in the wait result and the thread, resumed by id.
const t2 = await client.threads.create({ metadata: { user: "bob" } });
const waited = await client.runs.wait(t2.thread_id, "review", { input: { topic: "go" } });
assert.equal(waited.__interrupt__.length, 1);
assert.equal(waited.__interrupt__[0].value.question, "publish?");
const interruptId = waited.__interrupt__[0].id;
const t2got = await client.threads.get(t2.thread_id);
assert.equal(t2got.status, "interrupted");
const taskIds = Object.keys(t2got.interrupts);
assert.equal(taskIds.length, 1);
assert.equal(t2got.interrupts[taskIds[0]][0].id, interruptId);
const t2state = await client.threads.getState(t2.thread_id);
assert.deepEqual(t2state.next, ["review"]);
assert.equal(t2state.tasks[0].interrupts[0].id, interruptId);
const interrupted = await client.threads.search({ status: "interrupted" });
assert.deepEqual(interrupted.map((t) => t.thread_id), [t2.thread_id]);
// Our storage report (no LangGraph field): the paused thread's
// checkpoints, its pending writes (the interrupt) and their bytes.
const paused = await client.threads.get(t2.thread_id);
assert.ok(paused.storage.checkpoints >= 3, JSON.stringify(paused.storage));
assert.ok(paused.storage.writes >= 1, JSON.stringify(paused.storage));
assert.ok(paused.storage.bytes > 0, JSON.stringify(paused.storage));
const resumed = await collect(
  client.runs.stream(t2.thread_id, "review", {
    command: { resume: { [interruptId]: "yes" } },
    streamMode: "updates",
  }),
);
const reviewUpdate = resumed.find((c) => c.event === "updates" && c.data.review);
assert.deepEqual(reviewUpdate.data.review, { approved: true, notes: ["answered yes"] });
const done = await client.threads.get(t2.thread_id);
assert.equal(done.status, "idle");
assert.equal(done.values.approved, true);
step("interrupt and resume by id");

// Resume by value, with an update of the state in the same command.
const t3 = await client.threads.create();
await client.runs.wait(t3.thread_id, "review", { input: { topic: "rust" } });
const byValue = await client.runs.wait(t3.thread_id, "review", {
  command: { resume: "no", update: { topic: "zig" } },
});
assert.equal(byValue.approved, false);
assert.equal(byValue.topic, "zig");
assert.deepEqual(byValue.notes, ["answered no"]);
step("resume by value with update");

// Search threads by metadata.
const anns = await client.threads.search({ metadata: { user: "ann" } });
assert.deepEqual(anns.map((t) => t.thread_id), [thread.thread_id]);
step("search threads");

// A search's select answers only the fields it names; a field a thread
// does not have is refused (422).
const listed = await client.threads.search({ metadata: { user: "ann" }, select: ["thread_id", "created_at", "updated_at", "metadata", "status"] });
assert.ok(listed.length >= 1);
for (const t of listed) {
  assert.deepEqual(Object.keys(t).sort(), ["created_at", "metadata", "status", "thread_id", "updated_at"]);
  assert.equal(t.metadata.user, "ann");
}
const withValues = await client.threads.search({ ids: [thread.thread_id], select: ["thread_id", "values"] });
assert.deepEqual(withValues, [{ thread_id: thread.thread_id, values: (await client.threads.getState(thread.thread_id)).values }]);
await assert.rejects(client.threads.search({ select: ["thread_id", "colour"] }), (e) => e.status === 422 && /colour/.test(e.message));
step("search threads with select");

// A background run, joined as a stream from the start, then waited for.
const t4 = await client.threads.create();
const run = await client.runs.create(t4.thread_id, "echo", { input: { input: "later" }, streamMode: ["values"] });
assert.ok(["pending", "running", "success"].includes(run.status), run.status);
const joined = await collect(client.runs.joinStream(t4.thread_id, run.run_id));
assert.ok(joined.some((c) => c.event === "values" && c.data.input === "later"), JSON.stringify(joined));
const joinedValues = await client.runs.join(t4.thread_id, run.run_id);
assert.deepEqual(joinedValues.replies, ["echo: later"]);
const rejoined = await collect(client.runs.joinStream(t4.thread_id, run.run_id, { lastEventId: joined[1].id }));
assert.ok(rejoined.length < joined.length, `${rejoined.length} after id ${joined[1].id} of ${joined.length}`);
const got = await client.runs.get(t4.thread_id, run.run_id);
assert.equal(got.status, "success");
const runs = await client.runs.list(t4.thread_id);
assert.deepEqual(runs.map((r) => r.run_id), [run.run_id]);
step("background run, join stream, rejoin from an event id");

// A stateless run.
const stateless = await client.runs.wait(null, "echo", { input: { input: "once" } });
assert.deepEqual(stateless.replies, ["echo: once"]);
step("stateless run");

// An input field the graph does not have is a 422.
const t5 = await client.threads.create();
await assert.rejects(
  client.runs.wait(t5.thread_id, "echo", { input: { nope: 1 } }),
  (err) => err.status === 422 || /422/.test(String(err)),
);
step("invalid input is 422");

// Copy and delete.
const copy = await client.threads.copy(thread.thread_id);
const copyState = await client.threads.getState(copy.thread_id);
assert.equal(copyState.values.input, "forked");
await client.threads.delete(copy.thread_id);
await assert.rejects(client.threads.get(copy.thread_id), (err) => err.status === 404 || /404/.test(String(err)));
step("copy and delete");

// Crons: created on a thread and without one, searched, updated, deleted.
const cron = await client.crons.createForThread(thread.thread_id, "echo", { schedule: "*/5 * * * *", input: { input: "tick" } });
assert.equal(cron.thread_id, thread.thread_id);
assert.ok(cron.next_run_date);
const hourly = await client.crons.create("echo", { schedule: "0 * * * *", input: { input: "hourly" } });
const found = await client.crons.search({ threadId: thread.thread_id });
assert.deepEqual(found.map((c) => c.cron_id), [cron.cron_id]);
const off = await client.crons.update(hourly.cron_id, { enabled: false });
assert.equal(off.enabled, false);
await client.crons.delete(cron.cron_id);
await client.crons.delete(hourly.cron_id);
assert.deepEqual(await client.crons.search(), []);
step("crons");

// The store: items put, read, searched by namespace prefix and filter,
// namespaces listed, an item deleted.
await client.store.putItem(["users", "ann", "prefs"], "theme", { color: "green", size: 3 });
await client.store.putItem(["users", "ann", "prefs"], "lang", { code: "go", size: 1 });
await client.store.putItem(["users", "bob"], "theme", { color: "red" }, { ttl: 60 });
const item = await client.store.getItem(["users", "ann", "prefs"], "theme");
assert.deepEqual(item.value, { color: "green", size: 3 });
assert.deepEqual(item.namespace, ["users", "ann", "prefs"]);
assert.ok(item.createdAt && item.updatedAt);
const inAnn = await client.store.searchItems(["users", "ann"]);
assert.deepEqual(inAnn.items.map((i) => i.key).sort(), ["lang", "theme"]);
const big = await client.store.searchItems(["users"], { filter: { size: { $gte: 2 } } });
assert.deepEqual(big.items.map((i) => i.key), ["theme"]);
const nss = await client.store.listNamespaces({ prefix: ["users"], maxDepth: 2 });
assert.deepEqual(nss.namespaces, [["users", "ann"], ["users", "bob"]]);
await client.store.deleteItem(["users", "ann", "prefs"], "theme");
await assert.rejects(client.store.getItem(["users", "ann", "prefs"], "theme"), (err) => err.status === 404 || /404/.test(String(err)));
step("store");

// Two replicas on one PostgreSQL database, whose workers execute the runs
// (server/sdk_test.go starts them; each serves every thread and run).
const replicaB = process.env.STATEGRAPH_REPLICA_B;
if (replicaB) {
  const other = new Client({ apiUrl: replicaB, callerOptions: { maxRetries: 0 } });
  const hooks = process.env.STATEGRAPH_HOOKS;
  const post = async (base, path) => {
    const res = await fetch(base + path, { method: "POST" });
    assert.ok(res.ok, `${path}: ${res.status}`);
  };
  // The gate graph's wait node passes once its thread's gate is open in
  // the process that executes it: open it in both.
  const open = async (threadId) => {
    await post(apiUrl, `/__test/open/${threadId}`);
    await post(replicaB, `/__test/open/${threadId}`);
  };
  // Reads a run's stream from the other replica until its first node's
  // update: the run has reached the gate's wait node.
  const reachGate = async (threadId, runId) => {
    for await (const chunk of other.runs.joinStream(threadId, runId)) {
      if (chunk.event === "updates" && chunk.data.first) return;
      assert.notEqual(chunk.event, "end", "the run ended before its gate");
    }
    assert.fail("the stream ended before the gate");
  };
  const gateRun = (c, threadId, step, strategy) =>
    c.runs.create(threadId, "gate", { input: { steps: [step] }, streamMode: ["updates"], multitaskStrategy: strategy });

  // Stream on A in several modes; join the same stream from B, whole and
  // after an event id.
  const rt = await client.threads.create();
  const streamed = await collect(
    client.runs.stream(rt.thread_id, "echo", {
      input: { input: "far" },
      streamMode: ["values", "updates", "messages-tuple", "custom", "debug"],
    }),
  );
  const kinds = new Set(streamed.map((c) => c.event));
  for (const k of ["metadata", "values", "updates", "messages", "custom", "debug"]) assert.ok(kinds.has(k), `${k} in ${[...kinds]}`);
  const runId = streamed[0].data.run_id;
  const fromB = await collect(other.runs.joinStream(rt.thread_id, runId));
  assert.deepEqual(fromB.map((c) => c.event), streamed.map((c) => c.event));
  assert.deepEqual(fromB.at(-1).data, streamed.at(-1).data);
  const tail = await collect(other.runs.joinStream(rt.thread_id, runId, { lastEventId: "3" }));
  assert.equal(tail.length, streamed.length - 3);
  step("replicas: stream on one, join from the other");

  // An interrupt waited for on A, answered by id on B; history, update
  // and fork on B.
  const ri = await client.threads.create();
  const asked = await client.runs.wait(ri.thread_id, "review", { input: { topic: "replicas" } });
  const askedId = asked.__interrupt__[0].id;
  assert.equal((await other.threads.get(ri.thread_id)).status, "interrupted");
  const answered = await other.runs.wait(ri.thread_id, "review", { command: { resume: { [askedId]: "yes" } } });
  assert.equal(answered.approved, true);
  const riHistory = await other.threads.getHistory(ri.thread_id, { limit: 20 });
  assert.ok(riHistory.length >= 4, `history of ${riHistory.length}`);
  const beforeReview = riHistory.find((s) => s.next.includes("review"));
  await other.threads.updateState(ri.thread_id, { values: { topic: "forked" }, checkpointId: beforeReview.checkpoint.checkpoint_id });
  const riForked = await client.threads.getState(ri.thread_id);
  assert.equal(riForked.values.topic, "forked");
  assert.equal(riForked.parent_checkpoint.checkpoint_id, beforeReview.checkpoint.checkpoint_id);
  step("replicas: interrupt on one, resume by id, history, update and fork on the other");

  // Cancel from B a run one of the workers holds at its gate.
  const rc = await client.threads.create();
  const held = await gateRun(client, rc.thread_id, "c");
  await reachGate(rc.thread_id, held.run_id);
  assert.equal((await other.threads.get(rc.thread_id)).status, "busy");
  await other.runs.cancel(rc.thread_id, held.run_id, true);
  assert.equal((await client.runs.get(rc.thread_id, held.run_id)).status, "interrupted");
  assert.equal((await client.threads.get(rc.thread_id)).status, "idle");
  assert.deepEqual((await client.threads.getState(rc.thread_id)).values.steps, ["c", "first"]);
  step("replicas: cancel");

  // reject and enqueue.
  const rq = await client.threads.create();
  const r1 = await gateRun(client, rq.thread_id, "a");
  await reachGate(rq.thread_id, r1.run_id);
  await assert.rejects(gateRun(other, rq.thread_id, "b", "reject"), (err) => err.status === 409 || /409/.test(String(err)));
  const r2 = await gateRun(other, rq.thread_id, "b", "enqueue");
  assert.equal((await client.runs.get(rq.thread_id, r2.run_id)).status, "pending");
  await open(rq.thread_id);
  const queued = await client.runs.join(rq.thread_id, r2.run_id);
  assert.deepEqual(queued.steps, ["a", "first", "waited", "b", "first", "waited"]);
  assert.equal((await other.runs.get(rq.thread_id, r1.run_id)).status, "success");
  assert.equal((await client.runs.list(rq.thread_id)).length, 2, "the rejected run stored nothing");
  step("replicas: multitask reject and enqueue");

  // interrupt: the running run is stopped, its finished steps stay.
  const rn = await client.threads.create();
  const n1 = await gateRun(client, rn.thread_id, "a");
  await reachGate(rn.thread_id, n1.run_id);
  const n2 = await gateRun(other, rn.thread_id, "b", "interrupt");
  await reachGate(rn.thread_id, n2.run_id);
  await open(rn.thread_id);
  const interruptedOut = await other.runs.join(rn.thread_id, n2.run_id);
  assert.deepEqual(interruptedOut.steps, ["a", "first", "b", "first", "waited"]);
  assert.equal((await client.runs.get(rn.thread_id, n1.run_id)).status, "interrupted");
  step("replicas: multitask interrupt");

  // rollback: the running run is undone and deleted.
  const rb = await client.threads.create();
  const b1 = await gateRun(client, rb.thread_id, "a");
  await reachGate(rb.thread_id, b1.run_id);
  const b2 = await gateRun(other, rb.thread_id, "b", "rollback");
  await reachGate(rb.thread_id, b2.run_id);
  await open(rb.thread_id);
  const rolledOut = await client.runs.join(rb.thread_id, b2.run_id);
  assert.deepEqual(rolledOut.steps, ["b", "first", "waited"]);
  await assert.rejects(other.runs.get(rb.thread_id, b1.run_id), (err) => err.status === 404 || /404/.test(String(err)));
  step("replicas: multitask rollback");

  // A cron that both replicas find due fires once.
  const rr = await client.threads.create();
  const tick = await client.crons.createForThread(rr.thread_id, "echo", { schedule: "*/5 * * * *", input: { input: "cron" } });
  const at = encodeURIComponent(tick.next_run_date);
  await post(apiUrl, `/__test/tick?at=${at}`);
  await post(replicaB, `/__test/tick?at=${at}`);
  const fired = await other.runs.list(rr.thread_id);
  assert.equal(fired.length, 1, "fired once");
  const cronOut = await client.runs.join(rr.thread_id, fired[0].run_id);
  assert.deepEqual(cronOut.replies, ["echo: cron"]);
  await other.crons.delete(tick.cron_id);
  step("replicas: a cron fires once");

  // A webhook, posted by whichever process finished the run.
  const hooked = await other.runs.create(null, "echo", { input: { input: "hook" }, webhook: hooks });
  const hook = await (await fetch(`${hooks}/wait?run_id=${hooked.run_id}`)).json();
  assert.equal(hook.status, "success");
  assert.deepEqual(hook.values.replies, ["echo: hook"]);
  step("replicas: webhook");
}

console.log("all ok");
