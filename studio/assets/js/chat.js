// The chat view of a thread whose state has a messages field (LangChain's
// message dicts: type, content, tool_calls, tool_call_id): the
// conversation, each AI message's tool calls with their results folded
// under it, a box that sends a human message as LangChain's clients do
// ({"messages": [{"type": "human", "content": …}]}), and a tool-review
// interrupt answered inline.

import { el } from "./dom.js";

/** messagesOf returns the messages of a state's values, or null when it has none. */
export function messagesOf(values) {
  const m = values?.messages;
  return Array.isArray(m) ? m : null;
}

/** textOf gives a message's content as text: a string, or its text blocks. */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
  return content.map((b) => (typeof b === "string" ? b : b?.type === "text" ? b.text : `[${b?.type || "block"}]`)).join("");
}

const roleOf = (m) => m.type || m.role || "message";

function argsText(args) {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {});
}

/** reviewOf returns the pending tool review of a head state, or null. */
export function reviewOf(head) {
  for (const t of head?.tasks || []) {
    for (const it of t.interrupts || []) {
      const v = it.value;
      if (it.when === "during" && v && Array.isArray(v.calls) && v.calls.every((c) => c && typeof c.tool === "string")) return { ...v, node: t.name };
    }
  }
  return null;
}

/**
 * chatView returns the conversation of messages. review is the pending
 * tool review or null; actions.decide(decisions) answers it, and
 * disabled says no answer can be sent now.
 */
export function chatView(messages, review, disabled, actions) {
  const results = new Map(); // tool_call_id → tool message
  for (const m of messages) if (roleOf(m) === "tool" && m.tool_call_id) results.set(m.tool_call_id, m);
  const shown = new Set();
  const items = [];
  messages.forEach((m, i) => {
    const role = roleOf(m);
    if (role === "tool" && shown.has(m.tool_call_id)) return; // folded under its AI message
    const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
    const text = textOf(m.content);
    const li = el("li", { class: `msg ${role}`, "data-role": role, "data-index": i, "data-id": m.id || "" },
      el("span", { class: "who" }, role === "human" ? "you" : role === "ai" ? "assistant" : role),
      text ? el("div", { class: "text" }, text) : null);
    for (const c of calls) {
      shown.add(c.id);
      const res = results.get(c.id);
      const waiting = review && review.message_id === m.id && review.calls.some((rc) => rc.id === c.id);
      const state = res ? (res.status === "error" ? "error" : "done") : waiting ? "review" : "pending";
      li.append(el("details", { class: `call ${state}`, "data-call": c.id || "", "data-tool": c.name || "", open: !!waiting },
        el("summary", {}, el("code", {}, `${c.name}(${argsText(c.args)})`), " ",
          el("span", { class: "call-state" }, res ? (state === "error" ? "failed" : "→ result") : waiting ? "waits for your review" : "no result yet")),
        res ? el("pre", { class: "result" }, textOf(res.content)) : null));
    }
    if (review && review.message_id && review.message_id === m.id) li.append(reviewForm(review, disabled, actions));
    items.push(li);
  });
  if (review && !messages.some((m) => m.id && m.id === review.message_id)) items.push(el("li", { class: "msg ai" }, reviewForm(review, disabled, actions)));
  return items;
}

let forms = 0;

function reviewForm(review, disabled, actions) {
  const n = ++forms;
  const rows = review.calls.map((c, i) => {
    const act = `review-${n}-${i}`;
    const txt = `review-text-${n}-${i}`;
    // Shown for an edit (the arguments) or a rejection (the reason).
    const text = el("input", { id: txt, class: "review-text", type: "text", value: c.args, hidden: true, "aria-label": `Arguments or reason for ${c.tool}` });
    const sel = el("select", {
      id: act, class: "review-action", "data-call": c.id,
      onchange: (ev) => {
        text.hidden = ev.target.value === "approve";
        text.value = ev.target.value === "edit" ? c.args : "";
        text.placeholder = ev.target.value === "reject" ? "why (the model reads it)" : "";
      },
    },
    el("option", { value: "approve" }, "approve"), el("option", { value: "edit" }, "edit the arguments"), el("option", { value: "reject" }, "reject"));
    return { c, sel, text, view: el("div", { class: "review-call" }, el("label", { for: act }, `${c.tool}(${c.args})`), sel, text) };
  });
  const send = () => {
    const decisions = rows.map(({ sel, text }) => {
      const action = sel.value;
      if (action === "edit") return { action, args: text.value };
      if (action === "reject") return { action, reason: text.value };
      return { action };
    });
    actions.decide(decisions);
  };
  return el("form", { class: "review", onsubmit: (ev) => { ev.preventDefault(); send(); } },
    el("p", { class: "review-title" }, `Before it runs ${review.calls.length === 1 ? "this call" : "these calls"}, node ${review.node} waits for your decision`),
    ...rows.map((r) => r.view),
    el("div", { class: "buttons" }, el("button", { type: "submit", id: "review-submit", disabled }, "Send the decisions and resume")));
}
