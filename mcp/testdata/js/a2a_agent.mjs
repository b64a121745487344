// A tiny A2A agent served by the official A2A JS SDK's server side
// (@a2a-js/sdk, v1.0 with its v0.3 compatibility layer on), for package
// a2a's client node tests (a2a/node_sdk_test.go): it asks "your name?"
// (input-required), then answers "hello, NAME" in a data artifact and
// completes, in the same task. Prints its JSON-RPC URL, then serves until
// stdin closes.
// node a2a_agent.mjs
import express from "express";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { jsonRpcHandler, agentCardHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const S = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, INPUT_REQUIRED: 6 };
const now = () => new Date().toISOString();
const text = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
const agentMessage = (ctx, part) => ({
  messageId: crypto.randomUUID(), contextId: ctx.contextId, taskId: ctx.taskId, role: 2, parts: [part],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});

const executor = {
  async execute(ctx, bus) {
    const userText = ctx.userMessage.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
    const task = ctx.task ?? { id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [], metadata: undefined,
      status: { state: S.SUBMITTED, message: undefined, timestamp: now() } };
    if (!ctx.task) {
      bus.publish(AgentEvent.task(task));
      bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
        status: { state: S.INPUT_REQUIRED, message: agentMessage(ctx, text("your name?")), timestamp: now() } }));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.task({ ...task, status: { state: S.WORKING, message: undefined, timestamp: now() } }));
    bus.publish(AgentEvent.artifactUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: "result", name: "result", description: "", extensions: [], metadata: undefined,
        parts: [{ content: { $case: "data", value: { reply: "hello, " + userText } }, metadata: undefined, filename: "", mediaType: "" }] } }));
    bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, metadata: undefined,
      status: { state: S.COMPLETED, message: undefined, timestamp: now() } }));
    bus.finished();
  },
  async cancelTask() {},
};

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}`;
  const card = {
    name: "greeter", description: "asks a name, then greets", version: "1.0.0",
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {}, securityRequirements: [], defaultInputModes: ["text/plain"], defaultOutputModes: ["application/json"],
    skills: [], signatures: [], provider: undefined, documentationUrl: undefined, iconUrl: undefined,
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use(jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
  console.log(url);
});
process.stdin.on("end", () => server.close(() => process.exit(0)));
process.stdin.resume();
