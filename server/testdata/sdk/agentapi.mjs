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

console.log("all ok");
