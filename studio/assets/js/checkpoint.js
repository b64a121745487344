// The selected checkpoint: what changed, its metadata and tasks, the
// trace of its run, its state, and the graph with the path to it.

import { $, el, clear } from "./dom.js";
import { draw } from "./graph.js";
import * as timeline from "./timeline.js";
import { diff, diffTable, tree } from "./values.js";
import { markCheckpoint, traceView } from "./trace.js";
import { quiet, readOnly, S, say } from "./state.js";
import { select } from "./app.js";

let rendered = ""; // what the checkpoint pane shows: a re-read of the same keeps it as it is

/** forgetCheckpoint makes the next renderCheckpoint draw the pane anew. */
export function forgetCheckpoint() { rendered = ""; }

export function renderCheckpoint() {
  const e = S.tl.byID.get(S.selected);
  if (!e) return;
  const ro = !!readOnly(S.thread);
  $("replay").disabled = !!S.run || !S.graphID || ro;
  $("edit-submit").disabled = !!S.run || !S.graphID || ro;
  const sig = JSON.stringify([S.tid, e.id, e.parent, e.nodes, e.state.tasks, e.state.next, S.graphID, S.drawings.has(S.graphID)]);
  if (sig === rendered) { renderTrace(); renderGraph(); return; }
  rendered = sig;
  const st = e.state;
  const md = st.metadata || {};
  const parent = S.tl.byID.get(e.parent);
  $("checkpoint-title").textContent = `Checkpoint at step ${md.step}` + (e.nodes.length ? ` (${e.nodes.join(", ")})` : "");
  const meta = [
    ["id", e.id], ["source", md.source], ["step", md.step], ["nodes", e.nodes.join(", ") || "–"],
    ["created", st.created_at], ["parent", e.parent || "–"], ["next", (st.next || []).join(", ") || "– (the end)"],
    ["run", md.run_id || "–"],
  ];
  const extra = Object.entries(md).filter(([k]) => !["source", "step", "run_id", "parents"].includes(k));
  for (const [k, v] of extra) meta.push([k, typeof v === "string" ? v : JSON.stringify(v)]);
  clear($("checkpoint-meta"), meta.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v ?? ""))]));

  const tasks = st.tasks || [];
  clear($("checkpoint-tasks"), tasks.length ? [
    el("h4", {}, "Tasks of the next step"),
    el("ul", { class: "tasks" }, tasks.map((t) => el("li", {},
      el("strong", {}, t.name),
      t.error ? el("span", { class: "mark error" }, ` error: ${t.error}`) : null,
      (t.interrupts || []).length ? el("span", { class: "mark interrupt" }, ` interrupt: ${JSON.stringify(t.interrupts.map((i) => i.value))}`) : null))),
  ] : []);

  renderTrace();
  const changes = diff(parent ? parent.state.values : undefined, st.values);
  clear($("diff"), diffTable(parent ? changes : [], !!parent));
  clear($("state-tree"), tree(st.values, new Set(parent ? changes.map((c) => c.path) : [])));

  const fields = Object.keys(st.values || {}).sort();
  const keep = $("edit-field").value;
  clear($("edit-field"), el("option", { value: "" }, "(choose a field)"), fields.map((f) => el("option", { value: f }, f)));
  if (fields.includes(keep)) $("edit-field").value = keep;
  const drawing = S.drawings.get(S.graphID);
  const nodes = (drawing?.nodes || []).filter((n) => n.type !== "schema").map((n) => n.id);
  const asNode = e.nodes[0] || "";
  clear($("edit-node"), el("option", { value: "" }, "(none: keep the pending tasks)"), nodes.map((n) => el("option", { value: n }, n)));
  $("edit-node").value = nodes.includes(asNode) ? asNode : "";
  renderGraph();
}

// pickNode selects the newest checkpoint node wrote on the path to the
// selected one, else the newest it wrote anywhere in the thread.
function pickNode(node) {
  const e = S.tl.byID.get(S.selected);
  const onPath = e ? timeline.pathTo(e, S.tl.byID) : [];
  const hit = [...onPath].reverse().find((x) => x.nodes.includes(node)) ||
    [...S.tl.entries].reverse().find((x) => x.nodes.includes(node));
  if (!hit) { say(`Node ${node} has not run in thread ${S.tid}.`, "info"); return; }
  quiet();
  select(hit.id, false);
}

let traced = null; // {traces, run}: what the trace pane draws

export function renderTrace() {
  const e = S.tl.byID.get(S.selected);
  if (!e) return;
  const run = e.state.metadata?.run_id;
  // Another checkpoint of the run drawn: move the mark, keep the rows (or the note).
  if (traced?.traces === S.traces && traced.run === run) {
    const table = $("trace").querySelector("table.waterfall");
    if (table) markCheckpoint(table, e.id);
    return;
  }
  traced = { traces: S.traces, run };
  clear($("trace"), traceView(S.traces, run, e.id));
}

export function renderGraph() {
  const drawing = S.drawings.get(S.graphID);
  const box = $("graph");
  if (!drawing || drawing.nodes.length === 0) {
    clear(box, el("p", { class: "muted" }, readOnly(S.thread) ? "The graph that wrote this thread is not served here." : "No graph for this thread yet."));
    $("graph-path").textContent = "";
    return;
  }
  const e = S.tl.byID.get(S.selected);
  const path = e ? timeline.pathTo(e, S.tl.byID) : [];
  const visited = new Set();
  const taken = new Set();
  const edges = new Set(drawing.edges.map((d) => `${d.source}\u0000${d.target}`));
  let prev = ["__start__"];
  for (const p of path) {
    if (p.nodes.length === 0) continue;
    for (const n of p.nodes) {
      visited.add(n);
      for (const a of prev) if (edges.has(`${a}\u0000${n}`)) taken.add(`${a}\u0000${n}`);
    }
    prev = p.nodes;
  }
  const failed = new Set((e?.state.tasks || []).filter((t) => t.error).map((t) => t.name));
  const next = new Set((e?.state.next || []).filter((n) => !failed.has(n)));
  if (e && next.size === 0 && e.nodes.length) for (const a of prev) if (edges.has(`${a}\u0000__end__`)) { taken.add(`${a}\u0000__end__`); visited.add("__end__"); }
  if (path.length) visited.add("__start__");
  const running = S.run && S.run.tid === S.tid ? [...S.run.running] : [];
  const order = path.flatMap((p) => p.nodes);
  const title = `Graph ${S.graphID}. Path to the selected checkpoint: ${order.join(" → ") || "none"}.` +
    (next.size ? ` Next: ${[...next].join(", ")}.` : "") + (failed.size ? ` Failed: ${[...failed].join(", ")}.` : "") + (running.length ? ` Running: ${running.join(", ")}.` : "");
  const current = e?.nodes[0] || null;
  // The same marks as drawn (the next step of a loop): only the title
  // changes, so the drawing stays and no SVG is laid out again.
  const sig = JSON.stringify([S.graphID, [...visited].sort(), [...next].sort(), [...failed].sort(), [...taken].sort(), current, running[0] || null]);
  const title0 = box.querySelector("#graph-svg-title");
  if (title0 && box.dataset.sig === sig) title0.textContent = title;
  else {
    const focused = document.activeElement?.closest?.("#graph g.node")?.dataset.node;
    clear(box, draw(drawing, { visited, next, failed, taken, current, running: running[0] || null, title, onNode: pickNode }));
    box.dataset.sig = sig;
    if (focused) box.querySelector(`g.node[data-node="${CSS.escape(focused)}"]`)?.focus();
  }
  $("graph-path").textContent = `Path: ${order.join(" → ") || "–"}` + (next.size ? ` · next: ${[...next].join(", ")}` : "") +
    (failed.size ? ` · failed: ${[...failed].join(", ")}` : "") +
    (running.length ? ` · running: ${running.join(", ")}` : "");
  $("graph-path").dataset.running = running.join(",");
}
