// A thread's checkpoints as a timeline: oldest first, each branch (a
// checkpoint that is not its parent's first child) in a lane of its own.

import { el, keyed } from "./dom.js";

const idOf = (st) => st.checkpoint?.checkpoint_id || "";
const parentOf = (st) => st.parent_checkpoint?.checkpoint_id || "";

/**
 * build orders a history (newest first, as the API gives it) oldest
 * first and gives each entry: id, parent, lane, fork (it starts a
 * branch), children, nodes (what ran to make it) and the state itself.
 */
export function build(history) {
  const states = [...history].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  const byID = new Map();
  const entries = [];
  let lanes = 0;
  for (const st of states) {
    const id = idOf(st);
    const parent = byID.get(parentOf(st));
    const e = { id, parent: parent ? parent.id : "", state: st, children: [], lane: 0, fork: false };
    if (parent) {
      if (parent.children.length === 0) e.lane = parent.lane;
      else { e.lane = ++lanes; e.fork = true; }
      parent.children.push(e);
    } else if (entries.length > 0) {
      e.lane = ++lanes; // a root of its own (its parent is gone): a branch
    }
    e.nodes = nodesOf(st, parent?.state);
    byID.set(id, e);
    entries.push(e);
  }
  return { entries, byID };
}

// nodesOf names what made a checkpoint: the tasks its parent scheduled
// for a loop step, or the source (input, update, fork).
function nodesOf(st, parent) {
  const source = st.metadata?.source || "";
  if (source === "loop" && parent) {
    const names = [...new Set((parent.tasks || []).map((t) => t.name))].filter((n) => n !== "__start__");
    return names;
  }
  return [];
}

/** pathTo lists the entries from the thread's first checkpoint to e. */
export function pathTo(e, byID) {
  const out = [];
  for (let cur = e; cur; cur = byID.get(cur.parent)) out.unshift(cur);
  return out;
}

const clock = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });

function time(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  return clock.format(d) + "." + String(d.getMilliseconds()).padStart(3, "0");
}

/** render fills the listbox list with the entries; head is the thread's latest checkpoint id. */
export function render(list, entries, head, selected, onSelect) {
  keyed(list, entries.map((e) => {
    const st = e.state;
    const md = st.metadata || {};
    const errors = (st.tasks || []).filter((t) => t.error);
    const interrupts = (st.tasks || []).flatMap((t) => t.interrupts || []);
    const label = e.nodes.length ? e.nodes.join(", ") : md.source || "checkpoint";
    const isHead = e.id === head;
    const headText = isHead ? ((st.next || []).length ? `head · next ${st.next.join(", ")}` : "head") : "";
    const sig = JSON.stringify([md.step, label, e.lane, e.fork, errors.map((t) => t.name), interrupts.length, headText]);
    return {
      key: e.id,
      sig,
      make: () => {
        const marks = [
          el("span", { class: "mark" }, md.source || "?"),
          e.fork ? el("span", { class: "mark fork" }, "fork") : null,
          errors.length ? el("span", { class: "mark error" }, `error in ${errors.map((t) => t.name).join(", ")}`) : null,
          interrupts.length ? el("span", { class: "mark interrupt" }, `interrupt (${interrupts.length})`) : null,
          isHead ? el("span", { class: "mark head" }, headText) : null,
        ];
        const desc = [`step ${md.step}`, label, md.source, e.fork ? "fork" : "", errors.length ? "error" : "", interrupts.length ? "interrupt" : "", isHead ? "head" : ""]
          .filter(Boolean).join(", ");
        return el("li", {
          id: "cp-" + e.id, role: "option", "aria-label": desc, "data-id": e.id, "data-step": md.step, "data-nodes": e.nodes.join(","),
          "data-source": md.source || "", "data-lane": e.lane,
          // A class, not an inline style: the page's CSP allows no inline style.
          class: `lane-${Math.min(e.lane, 6)}`,
          onclick: () => onSelect(e.id, true),
        },
        el("span", { class: "step" }, String(md.step)),
        el("span", { class: "nodes" }, label),
        el("span", { class: "time" }, time(st.created_at)),
        el("span", { class: "marks" }, ...marks));
      },
      update: (li) => li.setAttribute("aria-selected", e.id === selected ? "true" : "false"),
    };
  }));
  if (selected) list.setAttribute("aria-activedescendant", "cp-" + selected);
  else list.removeAttribute("aria-activedescendant");
}

/** mark moves the listbox's selection to the row of checkpoint selected. */
export function mark(list, selected) {
  for (const li of list.querySelectorAll('li[aria-selected="true"]')) li.setAttribute("aria-selected", "false");
  document.getElementById("cp-" + selected)?.setAttribute("aria-selected", "true");
  list.setAttribute("aria-activedescendant", "cp-" + selected);
}

/**
 * keys handles the listbox's keyboard: ↑ ↓ the previous and next
 * checkpoint, ← the parent, → the next checkpoint on the same branch
 * (the first child), Home and End.
 */
export function keys(ev, entries, byID, selected, onSelect) {
  const i = entries.findIndex((e) => e.id === selected);
  const cur = entries[i];
  let next;
  switch (ev.key) {
    case "ArrowDown": next = entries[Math.min(i + 1, entries.length - 1)] || entries[0]; break;
    case "ArrowUp": next = i < 0 ? entries[entries.length - 1] : entries[Math.max(i - 1, 0)]; break;
    case "Home": next = entries[0]; break;
    case "End": next = entries[entries.length - 1]; break;
    case "ArrowLeft": next = cur ? byID.get(cur.parent) : undefined; break;
    case "ArrowRight": next = cur?.children[0]; break;
    default: return;
  }
  ev.preventDefault();
  if (next) onSelect(next.id, false);
}
