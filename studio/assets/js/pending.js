// What a thread waits for: interrupts to answer, or a pause before a
// node (interrupt_before, a failed task, a cancelled run) to continue.

import { el } from "./dom.js";

let forms = 0;

/**
 * pendingView returns the view of what the thread's latest state head
 * waits for, or null when it waits for nothing. actions.answer(resume)
 * resumes with an answer, actions.resume() continues with no input.
 */
export function pendingView(head, thread, running, actions) {
  if (!head || !thread || thread.status === "busy") return null;
  const tasks = head.tasks || [];
  const all = tasks.flatMap((t) => (t.interrupts || []).map((i) => ({ ...i, node: t.name })));
  // A node's graph.Interrupt ("during") waits for an answer; a static
  // interrupt_before or interrupt_after only for the word to go on.
  const asked = all.filter((i) => i.when === "during");
  if (asked.length > 0) return interruptsView(asked, running, actions);
  const next = head.next || [];
  if (next.length === 0) return null;
  const failed = tasks.filter((t) => t.error);
  const static_ = all.filter((i) => i.when !== "during");
  let why;
  if (failed.length) why = `The last run failed in ${failed.map((t) => `${t.name} (${t.error})`).join(", ")}. Retrying runs the tasks without saved writes again.`;
  else if (static_.length) why = `The run was interrupted ${static_[0].when} ${[...new Set(static_.map((i) => i.node))].join(", ")} (interrupt_${static_[0].when}) and waits for your go-ahead. Edit the state below first if you want, then continue.`;
  // A breakpoint records no interrupt (as in LangGraph): the thread's
  // status says the run stopped at one, before what is next.
  else if (thread.status === "interrupted") why = `The run was interrupted before ${next.join(", ")} (a breakpoint) and waits for your go-ahead. Edit the state below first if you want, then continue.`;
  else if (thread.status === "error" && limitOf(thread.error)) why = recursionText(thread.error, next);
  else if (thread.status === "error" && thread.error) why = `The last run failed: ${thread.error}. Continuing runs ${next.join(", ")} again from here.`;
  else if (["update", "fork"].includes(head.metadata?.source)) why = `The state was edited (${head.metadata.source}); the next step runs ${next.join(", ")}. Continue to run on from the edit.`;
  else why = `The thread stopped before ${next.join(", ")} (a cancelled run or a crash). Continuing runs it from there; work already saved is not done again.`;
  return el("div", {},
    el("p", {}, why),
    el("div", { class: "buttons" },
      el("button", { type: "button", id: "continue", disabled: running, onclick: () => actions.resume() },
        failed.length ? "Retry" : `Continue: run ${next.join(", ")}`)));
}

/** limitOf returns the recursion limit a run error names, or 0. */
export function limitOf(message) {
  const m = /recursion limit reached: (\d+) steps/.exec(message || "");
  return m ? Number(m[1]) : 0;
}

/** recursionText explains a run stopped by its recursion limit. */
export function recursionText(message, next) {
  const n = limitOf(message);
  return `The run stopped at its recursion limit: ${n} steps ran and ${next.length ? next.join(", ") : "more work"} was still to run. ` +
    `Nothing failed. Continue runs on from here with a new budget of ${n} steps; for a longer run, set a higher Recursion limit under Start a run.`;
}

function interruptsView(interrupts, running, actions) {
  const n = ++forms;
  const boxes = interrupts.map((it, i) => {
    const id = `answer-${n}-${i}`;
    const kind = `answer-kind-${n}-${i}`;
    return {
      it,
      view: el("fieldset", { class: "interrupt" },
        el("legend", {}, `${it.node} asks`),
        el("pre", { "aria-label": "The interrupt's value" }, typeof it.value === "string" ? it.value : JSON.stringify(it.value, null, 2)),
        el("label", { for: id }, "Your answer"),
        el("textarea", { id, rows: 2, spellcheck: "false", class: "answer" }),
        el("label", { for: kind }, "Send the answer as"),
        el("select", { id: kind, class: "answer-kind" },
          el("option", { value: "text" }, "text (a JSON string)"),
          el("option", { value: "json" }, "JSON (a number, object, …)"))),
    };
  });
  const send = () => {
    const values = [];
    for (const { it, view } of boxes) {
      const text = view.querySelector(".answer").value;
      if (view.querySelector(".answer-kind").value === "json") {
        try { values.push([it.id, JSON.parse(text)]); } catch (err) {
          actions.say(`The answer to ${it.node} is not valid JSON (${err.message}). Nothing was sent.`);
          return;
        }
      } else values.push([it.id, text]);
    }
    actions.answer(values.length === 1 ? values[0][1] : Object.fromEntries(values));
  };
  return el("form", { onsubmit: (ev) => { ev.preventDefault(); send(); } },
    ...boxes.map((b) => b.view),
    el("div", { class: "buttons" }, el("button", { type: "submit", id: "answer-submit", disabled: running }, "Answer and resume")));
}
