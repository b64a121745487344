// Drives the parts of the Agent Server API that issue #32 added with
// LangGraph's own JavaScript client. Run by server/agentapi_test.go:
// node agentapi.mjs URL. Exits non-zero, with the failed assertion on
// stderr, when the server answers otherwise than LangGraph's client
// expects.
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

async function rejects(promise, status, text) {
  try {
    await promise;
  } catch (err) {
    assert.equal(err.status, status, String(err));
    if (text) assert.match(String(err.message), text);
    return;
  }
  assert.fail(`expected a ${status}`);
}

// 1. command.goto: at a static breakpoint, a goto resumes the thread and
// runs its node beside the pending one; with update, the update is
// applied first; a Send runs its node with its own input.
{
  const t = await client.threads.create();
  let out = await client.runs.wait(t.thread_id, "route", { input: { note: "" }, interruptBefore: ["b"] });
  assert.deepEqual(out.trail, ["a"]);
  out = await client.runs.wait(t.thread_id, "route", { command: { goto: "c", update: { note: "x" } } });
  assert.deepEqual(out.trail, ["a", "b:x", "c:x"]);
  assert.equal(out.note, "x");

  const t2 = await client.threads.create();
  await client.runs.wait(t2.thread_id, "route", { input: { note: "" }, interruptBefore: ["b"] });
  out = await client.runs.wait(t2.thread_id, "route", { command: { goto: [{ node: "c", input: { note: "sent" } }, "c"] } });
  assert.deepEqual(out.trail, ["a", "b", "c", "c:sent"]);

  const t3 = await client.threads.create();
  await client.runs.wait(t3.thread_id, "route", { input: { note: "" }, interruptBefore: ["b"] });
  out = await client.runs.wait(t3.thread_id, "route", { command: { goto: ["c"], update: [["note", "p"]] } });
  assert.deepEqual(out.trail, ["a", "b:p", "c:p"], "an update given as [field, value] pairs");

  await rejects(client.runs.wait(t2.thread_id, "route", { command: { goto: "nowhere" } }), 422, /nowhere/);
  await rejects(client.runs.wait(t2.thread_id, "route", { command: { goto: [{ node: "c", input: { nope: 1 } }] } }), 422, /nope/);
  step("command goto");
}

// 2. Task inputs in the tasks and debug modes, with subgraphs; a pending
// subgraph task's state in getState(subgraphs).
{
  const t = await client.threads.create();
  const chunks = await collect(client.runs.stream(t.thread_id, "route", { input: { note: "n" }, streamMode: ["tasks", "debug"] }));
  const starts = chunks.filter((c) => c.event === "tasks" && "input" in c.data);
  assert.deepEqual(starts.map((c) => c.data.name), ["a", "b"]);
  assert.deepEqual(starts[0].data.input, { note: "n", trail: [] });
  assert.deepEqual(starts[0].data.triggers, ["branch:to:a"]);
  assert.deepEqual(starts[1].data.input, { note: "n", trail: ["a:n"] });
  const results = chunks.filter((c) => c.event === "tasks" && "result" in c.data);
  assert.deepEqual(results[1].data.result, [["trail", ["b:n"]]]);
  const debugStart = chunks.find((c) => c.event === "debug" && c.data.type === "task" && c.data.payload.name === "b");
  assert.deepEqual(debugStart.data.payload.input, { note: "n", trail: ["a:n"] });

  const t2 = await client.threads.create();
  await client.runs.wait(t2.thread_id, "route", { input: { note: "" }, interruptBefore: ["b"] });
  const sent = await collect(client.runs.stream(t2.thread_id, "route", {
    command: { goto: { node: "c", input: { note: "sent" } } }, streamMode: "tasks",
  }));
  const sendStart = sent.find((c) => c.data.name === "c" && "input" in c.data);
  assert.deepEqual(sendStart.data.input, { note: "sent", trail: [] });
  assert.deepEqual(sendStart.data.triggers, ["__pregel_push"]);

  const n = await client.threads.create();
  const nested = await collect(client.runs.stream(n.thread_id, "nest", { input: { input: "hi" }, streamMode: "tasks", streamSubgraphs: true }));
  const inner = nested.find((c) => c.event.startsWith("tasks|inner:") && c.data.name === "prepare" && "input" in c.data);
  assert.ok(inner, nested.map((c) => c.event).join(","));
  assert.deepEqual(inner.data.input, { input: "hi", replies: [] });

  const plain = await client.threads.getState(n.thread_id);
  assert.equal(plain.tasks[0].state, null);
  assert.match(plain.tasks[0].checkpoint.checkpoint_ns, /^inner:/);
  const full = await client.threads.getState(n.thread_id, undefined, { subgraphs: true });
  const sub = full.tasks[0].state;
  assert.deepEqual(sub.values, { input: "HI", replies: [] });
  assert.deepEqual(sub.next, ["respond"]);
  assert.equal(sub.checkpoint.checkpoint_ns, plain.tasks[0].checkpoint.checkpoint_ns);
  step("task inputs and subgraph state");
}

// 3. Subgraphs: their schemas by namespace, and the drawing with xray.
{
  const subs = await client.assistants.getSubgraphs("nest");
  assert.deepEqual(Object.keys(subs), ["inner"]);
  assert.equal(subs.inner.graph_id, "nest");
  assert.deepEqual(Object.keys(subs.inner.state_schema.properties).sort(), ["input", "replies"]);
  assert.deepEqual(Object.keys(await client.assistants.getSubgraphs("nest", { namespace: "inner", recurse: true })), ["inner"]);
  assert.deepEqual(await client.assistants.getSubgraphs("nest", { namespace: "elsewhere" }), {});
  assert.deepEqual(await client.assistants.getSubgraphs("route"), {});

  const flat = await client.assistants.getGraph("nest");
  assert.deepEqual(flat.nodes.map((n) => n.id), ["__start__", "inner", "__end__"]);
  const xray = await client.assistants.getGraph("nest", { xray: true });
  assert.deepEqual(xray.nodes.map((n) => n.id), ["__start__", "inner:prepare", "inner:respond", "__end__"]);
  assert.deepEqual(xray.nodes[1].data, { id: ["prepare"], name: "prepare" });
  const edges = xray.edges.map((e) => `${e.source}>${e.target}`).sort();
  assert.deepEqual(edges, ["__start__>inner:prepare", "inner:prepare>inner:respond"]);
  assert.deepEqual((await client.assistants.getGraph("nest", { xray: 1 })).nodes.length, 4);
  step("subgraphs and xray");
}

// 4. Assistants as resources: create, get, update (a new version),
// versions, setLatest, search by metadata and graph, count, delete; a run
// of an assistant gets its config and context, merged with the run's.
{
  const tag = `t${Date.now()}`;
  const a = await client.assistants.create({
    graphId: "conf", name: "fast", metadata: { team: tag }, config: { configurable: { model: "small" }, tags: ["a1"] },
    context: { user: "ann" },
  });
  assert.equal(a.graph_id, "conf");
  assert.equal(a.version, 1);
  assert.deepEqual(a.config.configurable, { model: "small" });
  assert.deepEqual(a.context, { user: "ann" });
  assert.deepEqual((await client.assistants.get(a.assistant_id)).metadata, { team: tag });
  await rejects(client.assistants.create({ graphId: "conf", assistantId: a.assistant_id }), 409);
  assert.equal((await client.assistants.create({ graphId: "conf", assistantId: a.assistant_id, ifExists: "do_nothing" })).name, "fast");
  await rejects(client.assistants.create({ graphId: "nope" }), 422, /nope/);

  let out = await client.runs.wait(null, a.assistant_id, { input: {} });
  assert.equal(out.note, "model=small user=ann tags=a1");
  assert.deepEqual(out.trail, [a.assistant_id]);
  out = await client.runs.wait(null, a.assistant_id, { input: {}, config: { configurable: { model: "big" }, tags: ["r1"] }, context: { user: "bob" } });
  assert.equal(out.note, "model=big user=bob tags=a1,r1");

  const v2 = await client.assistants.update(a.assistant_id, { config: { configurable: { model: "medium" } }, metadata: { stage: "two" } });
  assert.equal(v2.version, 2);
  assert.deepEqual(v2.metadata, { team: tag, stage: "two" });
  assert.deepEqual(v2.context, { user: "ann" }, "kept from the version before");
  out = await client.runs.wait(null, a.assistant_id, { input: {} });
  assert.equal(out.note, "model=medium user=ann tags=");

  const versions = await client.assistants.getVersions(a.assistant_id);
  assert.deepEqual(versions.map((v) => v.version), [2, 1]);
  assert.deepEqual((await client.assistants.getVersions(a.assistant_id, { metadata: { stage: "two" } })).map((v) => v.version), [2]);
  const back = await client.assistants.setLatest(a.assistant_id, 1);
  assert.equal(back.version, 1);
  assert.equal((await client.assistants.get(a.assistant_id)).config.configurable.model, "small");
  out = await client.runs.wait(null, a.assistant_id, { input: {} });
  assert.equal(out.note, "model=small user=ann tags=a1");
  await rejects(client.assistants.setLatest(a.assistant_id, 7), 404);
  const v3 = await client.assistants.update(a.assistant_id, { name: "faster" });
  assert.equal(v3.version, 3, "a new version after the highest, whichever is the latest");

  const other = await client.assistants.create({ graphId: "route", metadata: { team: tag } });
  const mine = await client.assistants.search({ metadata: { team: tag } });
  assert.deepEqual(mine.map((x) => x.assistant_id).sort(), [a.assistant_id, other.assistant_id].sort());
  assert.deepEqual((await client.assistants.search({ metadata: { team: tag }, graphId: "route" })).map((x) => x.assistant_id), [other.assistant_id]);
  assert.equal(await client.assistants.count({ metadata: { team: tag } }), 2);
  assert.equal(await client.assistants.count({ graphId: "conf" }), 2, "the graph's own and the new one");

  const th = await client.threads.create();
  await client.runs.wait(th.thread_id, other.assistant_id, { input: { note: "" } });
  await client.assistants.delete(other.assistant_id, { deleteThreads: true });
  await rejects(client.assistants.get(other.assistant_id), 404);
  await rejects(client.threads.get(th.thread_id), 404);
  await client.assistants.delete(a.assistant_id);
  assert.equal(await client.assistants.count({ metadata: { team: tag } }), 0);
  await rejects(client.assistants.delete("route"), 409, /own/);
  step("assistants with versions, config and context");
}

// 5. A run's durability: exit stores the final checkpoint only, sync
// every step; an unknown one is refused. (Its context: see 4.)
{
  const ex = await client.threads.create();
  const out = await client.runs.wait(ex.thread_id, "route", { input: { note: "" }, durability: "exit" });
  assert.deepEqual(out.trail, ["a", "b"]);
  assert.equal((await client.threads.getHistory(ex.thread_id, { limit: 20 })).length, 1);
  const sy = await client.threads.create();
  await client.runs.wait(sy.thread_id, "route", { input: { note: "" }, durability: "sync" });
  assert.equal((await client.threads.getHistory(sy.thread_id, { limit: 20 })).length, 4);
  const as = await client.threads.create();
  await client.runs.wait(as.thread_id, "route", { input: { note: "" }, durability: "async" });
  assert.equal((await client.threads.getHistory(as.thread_id, { limit: 20 })).length, 4);
  await rejects(client.runs.wait(sy.thread_id, "route", { input: {}, durability: "never" }), 422, /durability/);
  step("run durability");
}

// 6. Stream modes events (astream_events v2), tools and lifecycle, with
// subgraphs.
{
  const t = await client.threads.create();
  const chunks = await collect(client.runs.stream(t.thread_id, "tools", { input: { note: "" }, streamMode: ["events", "tools"] }));
  const evs = chunks.filter((c) => c.event === "events").map((c) => c.data);
  const runId = evs[0].run_id;
  assert.deepEqual(evs[0].event, "on_chain_start");
  assert.equal(evs[0].name, "tools");
  assert.deepEqual(evs[0].parent_ids, []);
  assert.deepEqual(evs[0].data.input, { note: "" });
  assert.equal(evs.at(-1).event, "on_chain_end");
  assert.equal(evs.at(-1).run_id, runId);
  assert.deepEqual(evs.at(-1).data.output, { note: "found offline", trail: ["agent", "act"] });
  const agentStart = evs.find((e) => e.event === "on_chain_start" && e.name === "agent");
  assert.deepEqual(agentStart.parent_ids, [runId]);
  assert.deepEqual(agentStart.tags, ["graph:step:1"]);
  assert.equal(agentStart.metadata.langgraph_node, "agent");
  assert.equal(agentStart.metadata.thread_id, t.thread_id);
  assert.deepEqual(agentStart.data.input, { note: "", trail: [] });
  const agentEnd = evs.find((e) => e.event === "on_chain_end" && e.name === "agent");
  assert.equal(agentEnd.run_id, agentStart.run_id);
  assert.deepEqual(agentEnd.data.output, { trail: ["agent"] });
  const tokens = evs.filter((e) => e.event === "on_chat_model_stream");
  assert.deepEqual(tokens.map((e) => e.data.chunk.content), ["look", "ing"]);
  assert.deepEqual(tokens[0].parent_ids, [runId, agentStart.run_id]);
  assert.equal(tokens[0].data.chunk.id, "m-1");
  assert.ok(evs.some((e) => e.event === "on_chat_model_start"));
  assert.equal(evs.find((e) => e.event === "on_chat_model_end").data.output.content, "looking");
  const toolStart = evs.find((e) => e.event === "on_tool_start");
  assert.equal(toolStart.name, "search");
  assert.deepEqual(toolStart.data.input, { q: "go" });
  assert.equal(evs.find((e) => e.event === "on_tool_end").data.output, "found");
  assert.ok(evs.filter((e) => e.event === "on_chain_stream").length >= 2, "each state of the graph");

  const tools = chunks.filter((c) => c.event === "tools").map((c) => c.data);
  assert.deepEqual(tools, [
    { event: "on_tool_start", name: "search", toolCallId: "call-1", input: { q: "go" } },
    { event: "on_tool_end", name: "search", toolCallId: "call-1", output: "found" },
    { event: "on_tool_start", name: "fetch", toolCallId: "call-2", input: { url: "x" } },
    { event: "on_tool_error", name: "fetch", toolCallId: "call-2", error: "offline" },
  ]);

  const n = await client.threads.create();
  const first = await collect(client.runs.stream(n.thread_id, "nest", { input: { input: "hi" }, streamMode: ["lifecycle", "events"], streamSubgraphs: true }));
  const life = first.filter((c) => c.event.startsWith("lifecycle|"));
  assert.deepEqual(life.map((c) => c.data.event), ["started", "interrupted"], first.map((c) => c.event).join(","));
  const ns = life[0].event.slice("lifecycle|".length);
  assert.match(ns, /^inner:/);
  assert.deepEqual(life[0].data.namespace, [ns]);
  const inner = first.find((c) => c.event === `events|${ns}` && c.data.event === "on_chain_start" && c.data.name === "prepare");
  assert.ok(inner, first.map((c) => c.event).join(","));
  assert.equal(inner.data.parent_ids.length, 2, "the run and the subgraph's task");
  const again = await collect(client.runs.stream(n.thread_id, "nest", { input: null, streamMode: "lifecycle" }));
  assert.deepEqual(again.filter((c) => c.event.startsWith("lifecycle|")).map((c) => c.data.event), ["started", "completed"]);
  step("events, tools and lifecycle modes");
}

// 7. A thread's ttl (strategy delete): the server's sweep at a later
// time deletes it, with its checkpoints; a thread without one stays.
{
  const tick = async (ms) => {
    const res = await fetch(`${apiUrl}/__test/tick?at=${new Date(Date.now() + ms).toISOString()}`, { method: "POST" });
    assert.equal(res.status, 204);
  };
  const doomed = await client.threads.create({ ttl: { ttl: 1, strategy: "delete" } });
  await client.runs.wait(doomed.thread_id, "route", { input: { note: "" } });
  const patched = await client.threads.create();
  await client.threads.update(patched.thread_id, { ttl: 2 });
  const kept = await client.threads.create();
  await tick(30 * 1000);
  assert.equal((await client.threads.get(doomed.thread_id)).thread_id, doomed.thread_id, "not yet");
  await tick(3 * 60 * 1000);
  await rejects(client.threads.get(doomed.thread_id), 404);
  await rejects(client.threads.getState(doomed.thread_id), 404);
  await rejects(client.threads.get(patched.thread_id), 404);
  assert.equal((await client.threads.get(kept.thread_id)).thread_id, kept.thread_id);
  await rejects(client.threads.create({ ttl: { ttl: 1, strategy: "keep_latest" } }), 422, /strategy/);
  await rejects(client.threads.create({ ttl: -1 }), 422, /ttl/);
  step("thread ttl");
}

console.log("all ok");
