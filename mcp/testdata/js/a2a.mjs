// Drives stategraph's A2A endpoint with the official A2A JS client
// (@a2a-js/sdk, its v0.3 compatibility layer; see server/a2a_sdk_test.go):
// node a2a.mjs BASE_URL USER
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";

const [base, user] = process.argv.slice(2);

// Every request carries the user the server's auth hook wants.
const authed = (input, init = {}) => {
  const headers = new Headers(init.headers);
  headers.set("X-User", user);
  return fetch(input, { ...init, headers });
};

// Without credentials the auth hook refuses even the card.
assert.equal((await fetch(`${base}/a2a/echo/.well-known/agent-card.json`)).status, 401);

// The card at LangGraph's URL is the card at the spec's well-known path.
const langgraphCard = await (await authed(`${base}/.well-known/agent-card.json?assistant_id=review`)).json();
const specCard = await (await authed(`${base}/a2a/review/.well-known/agent-card.json`)).json();
assert.deepEqual(langgraphCard, specCard);
// The card's URL names the assistant by its id, as LangGraph's does.
const { assistant_id: reviewID } = await (await authed(`${base}/assistants/review`)).json();
assert.equal(specCard.url, `${base}/a2a/${reviewID}`);
assert.equal(specCard.protocolVersion, "0.3.0");
assert.equal(specCard.capabilities.streaming, true);

const factory = new ClientFactory(
  ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl: authed, legacyCompat: { enabled: true } })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authed, legacyCompat: { enabled: true } }),
  }),
);
const client = async (id) => factory.createFromUrl(`${base}/a2a/${id}/`);

const text = (s) => ({ content: { $case: "text", value: s }, metadata: undefined, filename: "", mediaType: "" });
const data = (v) => ({ content: { $case: "data", value: v }, metadata: undefined, filename: "", mediaType: "" });
const message = (parts, extra = {}) => ({
  messageId: randomUUID(), role: 1, parts, contextId: "", taskId: "", metadata: undefined,
  extensions: [], referenceTaskIds: [], ...extra,
});
const send = (c, msg, configuration) => c.sendMessage({ tenant: "", message: msg, configuration, metadata: undefined });
const dataOf = (parts) => parts.find((p) => p.content?.$case === "data")?.content.value;
const STATE = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5, inputRequired: 6 };

// The card the client resolved names the agent.
const echo = await client("echo");
assert.equal((await echo.getAgentCard()).name, "echo");

// message/send: a data part is the graph's input; the final values are
// the task's artifact.
const done = await send(echo, message([data({ input: "from a2a" })]));
assert.ok(done.id && done.contextId, JSON.stringify(done));
assert.equal(done.status.state, STATE.completed, JSON.stringify(done));
assert.deepEqual(dataOf(done.artifacts[0].parts), { input: "from a2a", replies: ["echo: from a2a"] });

// tasks/get finds it again.
const got = await echo.getTask({ tenant: "", id: done.id });
assert.equal(got.status.state, STATE.completed);
assert.equal(got.contextId, done.contextId);
assert.deepEqual(dataOf(got.artifacts[0].parts), { input: "from a2a", replies: ["echo: from a2a"] });

// A run that fails is a failed task whose status message says why.
const failed = await send(echo, message([data({ input: "fail" })]));
assert.equal(failed.status.state, STATE.failed);
assert.match(failed.status.message.parts[0].content.value, /echo was asked to fail/);

// message/stream: the task, working, each node's update (working, the
// update in the status message), the artifact, then the final status.
const events = [];
for await (const ev of echo.sendMessageStream({ tenant: "", message: message([data({ input: "streamed" })]), configuration: undefined, metadata: undefined })) {
  events.push(ev.payload);
}
assert.deepEqual(events.map((e) => e.$case), ["task", "statusUpdate", "statusUpdate", "artifactUpdate", "statusUpdate"]);
assert.equal(events[0].value.status.state, STATE.submitted);
assert.equal(events[1].value.status.state, STATE.working);
assert.equal(events[2].value.status.state, STATE.working);
assert.deepEqual(dataOf(events[2].value.status.message.parts), { respond: { replies: ["echo: streamed"] } });
assert.deepEqual(dataOf(events[3].value.artifact.parts).replies, ["echo: streamed"]);
assert.equal(events[4].value.status.state, STATE.completed);
const streamedID = events[0].value.id;
for (const e of events.slice(1)) assert.equal(e.value.taskId, streamedID);

// input-required round trip: the review graph interrupts to ask; the
// next message in the context answers it and the task completes.
const review = await client("review");
const asked = await send(review, message([data({ topic: "a2a" })]));
assert.equal(asked.status.state, STATE.inputRequired, JSON.stringify(asked));
assert.deepEqual(dataOf(asked.status.message.parts), { question: "publish?", draft: "a post about a2a" });
const answered = await send(review, message([text("yes")], { contextId: asked.contextId }));
assert.equal(answered.contextId, asked.contextId);
assert.notEqual(answered.id, asked.id, "the answer is a task (run) of its own on the same context (thread)");
assert.equal(answered.status.state, STATE.completed, JSON.stringify(answered));
const final = dataOf(answered.artifacts[0].parts);
assert.equal(final.approved, true);
assert.deepEqual(final.notes, ["answered yes"]);

// The same round trip over message/stream ends the first stream at
// input-required.
const streamedAsk = [];
for await (const ev of review.sendMessageStream({ tenant: "", message: message([data({ topic: "streams" })]), configuration: undefined, metadata: undefined })) {
  streamedAsk.push(ev.payload);
}
// write's update, then the interrupt, before the final input-required.
const updates = streamedAsk.filter((e) => e.$case === "statusUpdate" && e.value.status.message);
assert.deepEqual(dataOf(updates[0].value.status.message.parts), { write: { draft: "a post about streams" } });
const last = streamedAsk.at(-1);
assert.equal(last.$case, "statusUpdate");
assert.equal(last.value.status.state, STATE.inputRequired);
const streamedAnswer = await send(review, message([text("no")], { contextId: last.value.contextId }));
assert.equal(streamedAnswer.status.state, STATE.completed);
assert.equal(dataOf(streamedAnswer.artifacts[0].parts).approved, false);

// An answer in a data part that is not an object (the client wraps it as
// {value} for v0.3) reaches the interrupt as the value itself.
const askedAgain = await send(review, message([data({ topic: "data" })]));
assert.equal(askedAgain.status.state, STATE.inputRequired);
const dataAnswer = await send(review, message([data("yes")], { contextId: askedAgain.contextId }));
assert.equal(dataAnswer.status.state, STATE.completed, JSON.stringify(dataAnswer));
assert.deepEqual(dataOf(dataAnswer.artifacts[0].parts).notes, ["answered yes"]);

// tasks/cancel: a task started without waiting (the gate graph blocks
// until released) is cancelled; cancelling it again is refused.
const gate = await client("gate");
const started = await send(gate, message([data({})]), { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: true });
assert.ok([STATE.submitted, STATE.working].includes(started.status.state), JSON.stringify(started));
const canceled = await gate.cancelTask({ tenant: "", id: started.id, metadata: undefined });
assert.equal(canceled.status.state, STATE.canceled, JSON.stringify(canceled));
assert.equal((await gate.getTask({ tenant: "", id: started.id })).status.state, STATE.canceled);
await assert.rejects(gate.cancelTask({ tenant: "", id: started.id, metadata: undefined }), /not pending or running/);

// An unknown task is an error.
await assert.rejects(echo.getTask({ tenant: "", id: "nope" }), /no task "nope"/);

console.log("all ok");
