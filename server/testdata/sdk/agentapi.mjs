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

console.log("all ok");
