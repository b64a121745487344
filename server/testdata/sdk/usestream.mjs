// Drives the served chat assistant with LangChain's own front-end code:
// useStream (the React hook of @langchain/langgraph-sdk, rendered in Node
// with react-test-renderer), the SDK's messages-tuple stream turned back
// into AIMessageChunks by @langchain/core, and @langchain/core's
// stored-message mapping of every message the server returns, and the
// SDK's "messages" stream mode. Run by
// server/usestream_test.go: node usestream.mjs URL.
import assert from "node:assert/strict";
import React from "react";
import TestRenderer from "react-test-renderer";
import { Client } from "@langchain/langgraph-sdk";
import { useStream } from "@langchain/langgraph-sdk/react";
import { AIMessageChunk, mapStoredMessageToChatMessage } from "@langchain/core/messages";

globalThis.IS_REACT_ACT_ENVIRONMENT = true;
const { act } = TestRenderer;
const apiUrl = process.argv[2];
const step = (name) => console.log(`ok ${name}`);

// waitFor re-renders until cond holds about the hook's latest value (as
// testing-library's waitFor does), failing after the deadline.
async function waitFor(cond, what) {
  const deadline = Date.now() + 20000;
  for (;;) {
    let ok = false;
    await act(async () => { ok = cond(); if (!ok) await new Promise((r) => setTimeout(r, 10)); });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

// 1. useStream: send a human message as the hook does, render the AI
// message with its tool call, the tool result and the answer.
let hook;
function Chat() {
  hook = useStream({ apiUrl, assistantId: "chat", messagesKey: "messages" });
  return React.createElement("ul", null, hook.messages.map((m, i) =>
    React.createElement("li", { key: m.id ?? i }, `${m.type}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}${(m.tool_calls ?? []).map((c) => ` [${c.name} ${JSON.stringify(c.args)}]`).join("")}`)));
}
let renderer;
await act(async () => { renderer = TestRenderer.create(React.createElement(Chat)); });
await act(async () => { hook.submit({ messages: [{ type: "human", content: "What is the weather in Paris?" }] }); });
await waitFor(() => !hook.isLoading && hook.messages.length === 4, "the weather answer");
assert.equal(hook.error, undefined);
const rendered = renderer.root.findAllByType("li").map((li) => li.children.join(""));
assert.deepEqual(rendered, [
  "human: What is the weather in Paris?",
  'ai:  [get_weather {"city":"Paris"}]',
  "tool: Paris: light rain, 16°C",
  "ai: Here is what I found: Paris: light rain, 16°C.",
]);
step("useStream renders the tool call, its result and the answer");

// 2. A calculation waits for review: the hook shows the interrupt; approve
// the call from it and the run continues.
await act(async () => { hook.submit({ messages: [{ type: "human", content: "what is 12 * 7?" }] }); });
await waitFor(() => !hook.isLoading && hook.interrupt !== undefined, "the review interrupt");
const review = hook.interrupt.value;
assert.equal(review.calls[0].tool, "calculate");
await act(async () => { hook.submit(undefined, { command: { resume: [{ action: "approve" }] } }); });
await waitFor(() => !hook.isLoading && hook.messages.length === 8, "the approved calculation");
assert.equal(hook.messages[6].content, "12 * 7 = 84");
assert.equal(hook.messages[7].content, "Here is what I found: 12 * 7 = 84.");
assert.equal(hook.interrupt, undefined);
step("useStream approves a tool call from an interrupt and continues");
await act(async () => renderer.unmount());

// 3. messages-tuple: the chunks @langchain/core makes of it add up, by id,
// to the messages the state holds, tool-call chunks included.
const client = new Client({ apiUrl, callerOptions: { maxRetries: 0 } });
const thread = await client.threads.create();
const merged = new Map();
for await (const ev of client.runs.stream(thread.thread_id, "chat", {
  input: { messages: [{ type: "human", content: "Weather in Tokyo and Lima?" }] },
  streamMode: "messages-tuple",
})) {
  if (ev.event !== "messages") continue;
  const [chunk, meta] = ev.data;
  assert.ok(meta.langgraph_node && meta.langgraph_step !== undefined && meta.langgraph_triggers, JSON.stringify(meta));
  if (chunk.type !== "AIMessageChunk") continue;
  const c = new AIMessageChunk({ content: chunk.content, id: chunk.id, tool_call_chunks: chunk.tool_call_chunks, additional_kwargs: chunk.additional_kwargs, response_metadata: chunk.response_metadata });
  merged.set(chunk.id, merged.has(chunk.id) ? merged.get(chunk.id).concat(c) : c);
}
const state = await client.threads.getState(thread.thread_id);
const ais = state.values.messages.filter((m) => m.type === "ai");
assert.equal(merged.size, ais.length);
for (const m of ais) {
  const c = merged.get(m.id);
  assert.ok(c instanceof AIMessageChunk, `a chunk of ${m.id}`);
  assert.equal(c.content, m.content);
  assert.deepEqual(c.tool_calls.map((t) => [t.id, t.name, t.args]), (m.tool_calls ?? []).map((t) => [t.id, t.name, t.args]));
}
assert.deepEqual(merged.get(ais[0].id).tool_call_chunks.map((t) => t.name), ["get_weather", "get_weather"]);
step("messages-tuple chunks become AIMessageChunks equal to the state's messages");

// 4. Every message the server returns maps through @langchain/core's
// stored-message mapping to a message of the same type, content, id and
// tool calls.
const history = await client.threads.getHistory(thread.thread_id, { limit: 50 });
let mapped = 0;
for (const snap of [state, ...history]) {
  for (const m of snap.values.messages ?? []) {
    const msg = mapStoredMessageToChatMessage({ type: m.type, data: m });
    assert.equal(msg.type ?? msg._getType(), m.type);
    assert.deepEqual(msg.content, m.content);
    assert.equal(msg.id, m.id);
    if (m.type === "ai") assert.deepEqual(msg.tool_calls.map((t) => [t.id, t.name, t.args]), (m.tool_calls ?? []).map((t) => [t.id, t.name, t.args]));
    if (m.type === "tool") assert.equal(msg.tool_call_id, m.tool_call_id);
    mapped++;
  }
}
assert.ok(mapped > 10);
step(`stored-message mapping of ${mapped} messages`);

// 5. The "messages" stream mode (LangGraph's server's
// messages/metadata, messages/partial, messages/complete): every message
// of the thread comes complete once, and maps through @langchain/core to
// the message the state holds; a streamed message's partials, after its
// metadata, add up to it.
const chat = await client.threads.create();
const completed = [];
const partials = new Map();
const metadata = {};
for await (const ev of client.runs.stream(chat.thread_id, "chat", {
  input: { messages: { role: "user", content: "What is the weather in Paris?" } },
  streamMode: "messages",
})) {
  if (ev.event === "messages/metadata") Object.assign(metadata, ev.data);
  if (ev.event === "messages/partial") {
    for (const m of ev.data) {
      assert.ok(metadata[m.id], `metadata before the partials of ${m.id}`);
      partials.set(m.id, m.content);
    }
  }
  if (ev.event === "messages/complete") completed.push(...ev.data);
}
const after = await client.threads.getState(chat.thread_id);
assert.equal(completed.length, after.values.messages.length);
assert.equal(completed.length, 4);
completed.forEach((m, i) => {
  const want = mapStoredMessageToChatMessage({ type: after.values.messages[i].type, data: after.values.messages[i] });
  const got = mapStoredMessageToChatMessage({ type: m.type, data: m });
  assert.equal(got._getType(), want._getType());
  assert.deepEqual(got.content, want.content);
  assert.equal(got.id, want.id);
  if (m.type === "ai") assert.deepEqual(got.tool_calls.map((t) => [t.id, t.name, t.args]), want.tool_calls.map((t) => [t.id, t.name, t.args]));
  if (m.type === "tool") assert.equal(got.tool_call_id, want.tool_call_id);
});
assert.deepEqual(completed.map((m) => m.type), ["human", "ai", "tool", "ai"]);
assert.equal(completed[1].tool_calls[0].name, "get_weather");
assert.equal(partials.get(completed[3].id), completed[3].content);
assert.equal(metadata[completed[3].id].metadata.langgraph_node, "agent");
step("the messages stream carries whole messages, their metadata and partials");
console.log("all ok");
