// stategraph studio: the page's views and actions over package server's
// API. Views: threads, a thread's timeline, a checkpoint's state and
// diff, the graph. Actions: run, answer, fork, replay, cancel.

import { api, apiBase, APIError, stream } from "./api.js";
import { $, el, clear, keyed } from "./dom.js";
import { draw } from "./graph.js";
import * as timeline from "./timeline.js";
import { diff, diffTable, setOpen, tree } from "./values.js";
import { fetchTraces, traceView } from "./trace.js";
import { chatView, messagesOf, reviewOf } from "./chat.js";
import { limitOf, pendingView, recursionText } from "./pending.js";

// One formatter for every time shown: toLocaleString builds one per call,
// which made a list of 1,000 threads take half a second.
const dateTime = new Intl.DateTimeFormat([], { year: "numeric", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
const PAGE = 100;
const LIST_PAGE = 100; // threads listed at a time // checkpoints read at a time: a long thread opens fast
const READ_ONLY = "read-only"; // the graph of threads no served graph has

const S = {
  assistants: [],
  drawings: new Map(), // graph id → drawing
  schemas: new Map(), // graph id → schemas
  threads: [], // as /threads/search gives them, with .step added
  tid: null,
  thread: null,
  graphID: null,
  head: null, // the latest checkpoint's state, as last loaded
  tl: { entries: [], byID: new Map() },
  listed: LIST_PAGE, // how many threads the list shows
  older: [], // checkpoints older than the newest page, loaded with "Load older"
  more: false, // the thread may have checkpoints older than those loaded
  selected: null,
  want: null, // a checkpoint to select once the history has it
  run: null, // {tid, runID, running: Set of node names, status}
  traces: { recording: false, runs: [] }, // the runs of the open thread the studio's server traced
};

// ---- messages ----

function say(text, kind = "error") {
  const m = $("message");
  m.className = "message" + (kind === "info" ? " info" : "");
  m.setAttribute("role", kind === "info" ? "status" : "alert");
  m.textContent = text;
  m.hidden = false;
}
function quiet() { $("message").hidden = true; }
function explain(err, what) {
  if (err instanceof APIError) return `${what}: ${err.message}` + (err.status ? ` (HTTP ${err.status})` : "");
  return `${what}: ${err.message || err}`;
}

// ---- threads ----

async function loadThreads() {
  let threads;
  try {
    threads = await api.threads();
  } catch (err) {
    say(explain(err, "Could not list the threads"));
    return;
  }

  // One request: the search gives each thread's status, graph and time.
  S.threads = threads;
  renderThreads();
  performance.mark("studio:threads"); // the page's own timings (BenchmarkStudioPage)
}

/** readOnly is why a thread cannot be run or edited here, or "". */
export function readOnly(t) {
  return t?.metadata?.read_only_reason || "";
}

function statusOf(t) {
  // A thread stopped before a node by interrupt_before has no interrupt
  // record but waits all the same.
  if (t.status === "idle" && (t.next || []).length > 0) return "paused";
  return t.status;
}

function renderThreads() {
  const q = $("thread-search").value.trim().toLowerCase();
  const status = $("status-filter").value;
  const shown = S.threads.filter((t) => (!q || t.thread_id.toLowerCase().includes(q)) &&
    (!status || t.status === status || (status === "interrupted" && statusOf(t) === "paused")));
  const stop = shown.some((t) => t.thread_id === S.tid) ? S.tid : shown[0]?.thread_id;
  $("thread-count").textContent = `${shown.length} of ${S.threads.length} thread${S.threads.length === 1 ? "" : "s"}`;
  // The newest rows first, more on demand: a list of 1,000 threads is
  // ready without building 1,000 buttons (search and filter see them all).
  let rows = shown.slice(0, S.listed);
  const open = shown.find((t) => t.thread_id === S.tid);
  if (open && !rows.includes(open)) rows = [...rows, open];
  $("more-threads").hidden = shown.length <= rows.length;
  $("more-threads").textContent = `Show ${Math.min(LIST_PAGE, shown.length - rows.length)} more of ${shown.length - rows.length}`;
  keyed($("thread-list"), rows.map((t) => {
    const st = statusOf(t);
    const ro = readOnly(t);
    const updated = t.updated_at ? dateTime.format(new Date(t.updated_at)) : "";
    return {
      key: t.thread_id,
      sig: JSON.stringify([t.status, st, updated, t.metadata?.graph_id, ro]),
      make: () => el("li", {}, el("button", {
        type: "button", class: "thread", "data-thread": t.thread_id,
        "aria-label": `${t.thread_id}, ${st}${ro ? ", read-only" : ""}, graph ${t.metadata?.graph_id || "none"}, updated ${updated}`,
        onclick: () => openThread(t.thread_id),
      },
      el("span", { class: "tid" }, t.thread_id),
      el("span", { class: "badge " + (st === "paused" ? "interrupted" : t.status) }, st),
      el("span", { class: "sub" }, ro ? `read-only · ${updated}` : `${t.metadata?.graph_id || "no graph"} · ${updated}`))),
      update: (li) => {
        li.firstChild.setAttribute("aria-current", t.thread_id === S.tid ? "true" : "false");
        // One Tab stop for the list: the open thread (or the first); ↑ ↓ move.
        li.firstChild.tabIndex = t.thread_id === stop ? 0 : -1;
      },
    };
  }));
}

// ---- a thread ----

function graphOf(thread) {
  const g = thread?.metadata?.graph_id;
  if (g) return g;
  return S.assistants.length === 1 ? S.assistants[0].graph_id : null;
}

async function drawingOf(graphID) {
  if (!graphID) return null;
  if (!S.drawings.has(graphID)) S.drawings.set(graphID, await api.graph(graphID));
  return S.drawings.get(graphID);
}

async function openThread(tid, checkpointID) {
  quiet();
  if (S.tid !== tid) {
    // Another thread: nothing of the last one stays on screen while this one loads.
    S.selected = null; S.want = null; S.thread = null; S.head = null;
    S.tl = { entries: [], byID: new Map() };
    S.older = []; S.more = false;
    rendered = "";
    clear($("timeline"));
    delete $("timeline").dataset.thread;
    $("pending").hidden = true;
    pendingShown = "";
    $("read-only").hidden = true;
    $("thread-body").hidden = true;
    $("thread-title").textContent = tid;
    $("thread-status").hidden = true;
    $("thread-graph").textContent = "";
    $("chat").hidden = true;
    if (!S.run || S.run.tid !== tid) $("run-bar").hidden = true;
    $("thread-pane").setAttribute("aria-busy", "true");
  }
  S.tid = tid;
  if (checkpointID) S.want = checkpointID;
  renderThreads();
  await reloadThread();
  history.replaceState(null, "", `#thread=${encodeURIComponent(tid)}` + (S.selected ? `&checkpoint=${encodeURIComponent(S.selected)}` : ""));
}

let reloading = null;
let reloadAgain = false;

// reloadThread reads the open thread again: its record, its history and
// its latest state. Calls made while one is under way run once after it.
async function reloadThread() {
  if (reloading) { reloadAgain = true; return reloading; }
  reloading = (async () => {
    do {
      reloadAgain = false;
      await readThread();
    } while (reloadAgain);
  })();
  try { await reloading; } finally { reloading = null; }
}

async function readThread() {
  const tid = S.tid;
  if (!tid) return;
  let thread, hist, head;
  let traces;
  try {
    [thread, hist, head, traces] = await Promise.all([api.thread(tid), api.history(tid, PAGE), api.state(tid), fetchTraces(tid)]);
  } catch (err) {
    if (S.tid !== tid) return;
    // Nothing of another thread stays on screen: the pane says which
    // thread could not be read, and why.
    unreadable(tid, explain(err, `Could not read thread ${tid}`));
    return;
  }
  if (S.tid !== tid) return;
  // Following the head (it was selected) goes on following it as the thread grows.
  const following = !S.selected || S.selected === S.head?.checkpoint?.checkpoint_id;
  S.thread = thread;
  S.traces = traces;
  S.graphID = graphOf(thread);
  S.head = head;
  // The newest page, and the older pages loaded before (without the
  // checkpoints the newest page has again).
  const ids = new Set(hist.map((st) => st.checkpoint?.checkpoint_id));
  if (S.older.length === 0) S.more = hist.length === PAGE;
  S.tl = timeline.build([...hist, ...S.older.filter((st) => !ids.has(st.checkpoint?.checkpoint_id))]);
  const headID = head.checkpoint?.checkpoint_id || null;
  // A checkpoint asked for (a fork just written) is selected once a read
  // has it; a read that began before it was written keeps the selection.
  if (S.want && S.tl.byID.has(S.want)) { S.selected = S.want; S.want = null; }
  else if (following && !S.want) S.selected = headID;
  if (!S.selected || !S.tl.byID.has(S.selected)) S.selected = headID;
  const t = S.threads.find((x) => x.thread_id === tid);
  if (t) { t.status = thread.status; t.next = head.next || []; t.updated_at = thread.updated_at; renderThreads(); }
  try { await drawingOf(S.graphID); } catch (err) { say(explain(err, `Could not read the graph ${S.graphID}`)); }
  renderThread();
}

// unreadable shows thread tid as the open one with only the reason it
// could not be read: no header, timeline, graph or checkpoint of it (nor
// of the thread open before).
function unreadable(tid, why) {
  S.thread = null; S.head = null; S.selected = null; S.want = null;
  S.tl = { entries: [], byID: new Map() };
  rendered = "";
  clear($("timeline"));
  delete $("timeline").dataset.thread;
  $("thread-title").textContent = tid;
  $("thread-status").hidden = true;
  $("thread-graph").textContent = "";
  $("pending").hidden = true;
  pendingShown = "";
  $("read-only").hidden = true;
  $("chat").hidden = true;
  $("thread-body").hidden = true;
  $("empty-hint").hidden = false;
  $("empty-hint").textContent = why;
  $("empty-hint").dataset.error = "true";
  $("thread-pane").removeAttribute("aria-busy");
  $("run-here").disabled = true;
  say(why);
}

function renderThread() {
  const th = S.thread;
  $("empty-hint").hidden = !!th;
  $("thread-body").hidden = !th;
  const ro = readOnly(th);
  $("run-here").disabled = !th || !!S.run || !!ro;
  if (!th) return;
  $("empty-hint").textContent = "Choose a thread on the left, or start a run.";
  delete $("empty-hint").dataset.error;
  $("read-only").hidden = !ro;
  $("read-only").textContent = ro ? `Read-only: ${ro}. The studio shows its checkpoints; runs and edits are refused (run it with the program that wrote it).` : "";
  $("thread-title").textContent = th.thread_id;
  const st = statusOf({ ...th, next: S.head?.next });
  const badge = $("thread-status");
  badge.hidden = false;
  badge.className = "badge " + (st === "paused" ? "interrupted" : th.status);
  badge.textContent = st;
  $("thread-graph").textContent = ro ? "graph not served" : S.graphID ? `graph ${S.graphID}` : "no graph yet";
  renderPending();
  timeline.render($("timeline"), S.tl.entries, S.head?.checkpoint?.checkpoint_id, S.selected, select);
  $("timeline").dataset.thread = th.thread_id;
  $("load-older").hidden = !S.more;
  $("thread-pane").removeAttribute("aria-busy");
  renderCheckpoint();
  performance.mark("studio:thread");
}

function select(id, fromClick) {
  if (!S.tl.byID.has(id)) return;
  S.selected = id;
  // Only the selection moved: mark two rows rather than render the list
  // again (a thread of 1,000 checkpoints moves at key-repeat speed).
  timeline.mark($("timeline"), S.selected);
  const li = document.getElementById("cp-" + id);
  li?.scrollIntoView({ block: "nearest" });
  if (fromClick) $("timeline").focus();
  renderCheckpoint();
  history.replaceState(null, "", `#thread=${encodeURIComponent(S.tid)}&checkpoint=${encodeURIComponent(id)}`);
}

// ---- pending interrupts ----

// ---- the conversation of a chat thread ----

let chatShown = "";

function renderChat() {
  const msgs = messagesOf(S.head?.values);
  const box = $("chat");
  box.hidden = !msgs;
  if (!msgs) { chatShown = ""; return; }
  const ro = !!readOnly(S.thread);
  const review = reviewOf(S.head);
  const disabled = !!S.run || ro;
  $("chat-send").disabled = disabled || !!review;
  $("chat-input").disabled = ro;
  const sig = JSON.stringify([S.tid, msgs, review, disabled]);
  if (sig === chatShown) return;
  chatShown = sig;
  clear($("chat-log"), chatView(msgs, review, disabled, {
    decide: (decisions) => startRun(S.tid, { command: { resume: decisions } }),
  }));
  $("chat-log").dataset.count = String(msgs.length);
  $("chat-log").scrollTop = $("chat-log").scrollHeight; // the latest turn in view
}

async function sendChat() {
  quiet();
  const text = $("chat-input").value.trim();
  if (!text) { say("Write a message first. Nothing was sent."); return; }
  $("chat-input").value = "";
  await startRun(S.tid, { input: { messages: [{ type: "human", content: text }] } });
}

let pendingShown = "";

function renderPending() {
  renderChat();
  const box = $("pending");
  // A tool review of a chat thread is answered in the conversation.
  if (!$("chat").hidden && reviewOf(S.head)) { box.hidden = true; pendingShown = ""; return; }
  // The same question is not drawn again: a re-read while the pointer is
  // on Continue (or an answer is being typed) keeps the same elements.
  const sig = JSON.stringify([S.tid, S.head?.checkpoint?.checkpoint_id, S.head?.tasks, S.head?.next, S.thread?.status, S.thread?.error, !!S.run]);
  if (sig === pendingShown) return;
  pendingShown = sig;
  const body = pendingView(S.head, S.thread, !!S.run || !!readOnly(S.thread), {
    answer: (resume) => startRun(S.tid, { command: { resume } }),
    resume: () => startRun(S.tid, { input: null }),
    say,
  });
  box.hidden = !body;
  clear($("pending-body"), body);
}

// ---- the selected checkpoint ----

let rendered = ""; // what the checkpoint pane shows: a re-read of the same keeps it as it is

function renderCheckpoint() {
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

function renderTrace() {
  const e = S.tl.byID.get(S.selected);
  if (!e) return;
  clear($("trace"), traceView(S.traces, e.state.metadata?.run_id, e.id));
}

function renderGraph() {
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
  const focused = document.activeElement?.closest?.("#graph g.node")?.dataset.node;
  clear(box, draw(drawing, { visited, next, failed, taken, current: e?.nodes[0] || null, running: running[0] || null, title, onNode: pickNode }));
  if (focused) box.querySelector(`g.node[data-node="${CSS.escape(focused)}"]`)?.focus();
  $("graph-path").textContent = `Path: ${order.join(" → ") || "–"}` + (next.size ? ` · next: ${[...next].join(", ")}` : "") +
    (failed.size ? ` · failed: ${[...failed].join(", ")}` : "") +
    (running.length ? ` · running: ${running.join(", ")}` : "");
  $("graph-path").dataset.running = running.join(",");
}

// ---- runs ----

function runBar(text, cancellable) {
  $("run-bar").hidden = false;
  $("run-status").textContent = text;
  $("run-cancel").hidden = !cancellable;
}

async function startRun(tid, body) {
  if (S.run) { say("A run is streaming already: wait for it or cancel it."); return; }
  quiet();
  const graphID = S.tid === tid ? S.graphID : body.assistant_id;
  const run = { tid, runID: null, running: new Set(), status: "pending" };
  S.run = run;
  renderThread();
  runBar("Starting a run…", false);
  $("run-bar").dataset.status = "pending";
  const req = { assistant_id: graphID, stream_mode: ["values", "updates", "tasks", "checkpoints"], ...body };
  delete req.graph;
  try {
    await stream(tid, req, (name, data) => {
      switch (name.split("|")[0]) {
        case "metadata":
          run.runID = data.run_id;
          run.status = "running";
          runBar(`Run ${run.runID} is running`, true);
          break;
        case "tasks":
          if ("result" in data) run.running.delete(data.name);
          else run.running.add(data.name);
          runBar(`Run ${run.runID} is running` + (run.running.size ? `: ${[...run.running].join(", ")}` : ""), true);
          if (S.tid === tid) renderGraph();
          break;
        case "checkpoints":
          if (S.tid === tid) reloadThread();
          break;
        case "error":
          run.status = "error";
          if (limitOf(data.message)) say(recursionText(data.message, []));
          else say(`The run failed: ${data.message || data.error || JSON.stringify(data)}`);
          break;
        case "end":
          run.status = data.status || run.status;
          break;
      }
    });
  } catch (err) {
    run.status = "refused";
    say(explain(err, "The run was refused"));
  }
  S.run = null;
  run.running.clear();
  runBar(run.runID ? `Run ${run.runID} ended: ${run.status}` : `No run: ${run.status}`, false);
  $("run-bar").dataset.status = run.status;
  await loadThreads();
  if (S.tid === tid) await reloadThread();
  else renderThread();
}

async function cancelRun() {
  const run = S.run;
  if (!run?.runID) return;
  try {
    await api.cancel(run.tid, run.runID);
    runBar(`Cancelling run ${run.runID}…`, false);
  } catch (err) {
    say(explain(err, "Could not cancel the run"));
  }
}

// parseObject reads a JSON object from a text box, or says what is wrong.
function parseObject(text, what) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON (${err.message}). Nothing was changed.`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${what} must be a JSON object of field writes, like {"field": value}. Nothing was changed.`);
  return v;
}

async function newRun(onThisThread) {
  quiet();
  const graphID = $("run-graph").value;
  let input;
  try {
    input = parseObject($("run-input").value || "{}", "The input");
  } catch (err) { say(err.message); return; }
  const limit = $("run-limit").value.trim();
  const body = { input, assistant_id: graphID };
  if (limit) body.config = { recursion_limit: Number(limit) };
  const nodes = (id) => $(id).value.split(",").map((x) => x.trim()).filter(Boolean);
  const known = new Set(((S.drawings.get(graphID) || await drawingOf(graphID).catch(() => null))?.nodes || []).map((n) => n.id));
  for (const [id, key] of [["run-before", "interrupt_before"], ["run-after", "interrupt_after"]]) {
    const list = nodes(id);
    const unknown = list.filter((n) => n !== "*" && known.size > 0 && !known.has(n));
    if (unknown.length) { say(`Graph ${graphID} has no node ${unknown.join(", ")} (nodes: ${[...known].filter((n) => !n.startsWith("__")).join(", ")}). Nothing was started.`); return; }
    if (list.length) body[key] = list.includes("*") ? "*" : list;
  }
  let tid = S.tid;
  if (!onThisThread) {
    try {
      tid = (await api.createThread(graphID)).thread_id;
    } catch (err) { say(explain(err, "Could not create a thread")); return; }
    await loadThreads();
    await openThread(tid);
  } else if (S.graphID && S.graphID !== graphID) {
    say(`The open thread runs graph ${S.graphID}, not ${graphID}. Nothing was started.`);
    return;
  }
  await startRun(tid, body);
}

// loadOlder reads the page of checkpoints before the oldest loaded.
async function loadOlder() {
  const tid = S.tid;
  const oldest = S.tl.entries[0]?.id;
  if (!tid || !oldest) return;
  let page;
  try {
    page = await api.history(tid, PAGE, oldest);
  } catch (err) { say(explain(err, `Could not read the older checkpoints of thread ${tid}`)); return; }
  if (S.tid !== tid) return;
  S.older = [...S.older, ...page];
  S.more = page.length === PAGE;
  await reloadThread();
}

async function replay() {
  if (!S.selected) return;
  await startRun(S.tid, { input: null, checkpoint_id: S.selected });
}

async function fork() {
  quiet();
  const tid = S.tid;
  const from = S.selected;
  let values;
  try {
    values = parseObject($("edit-values").value, "The values");
  } catch (err) { say(err.message); return; }
  const loadedHead = S.head?.checkpoint?.checkpoint_id;
  // Refuse to write over a state the page no longer shows.
  try {
    const now = await api.state(tid);
    const nowHead = now.checkpoint?.checkpoint_id;
    if (from === loadedHead && nowHead !== loadedHead) {
      say(`Stale checkpoint: thread ${tid} moved on from ${loadedHead} to ${nowHead} since the page read it. Nothing was written; the timeline now shows the latest state, edit that or pick a checkpoint.`);
      await reloadThread();
      return;
    }
    await api.state(tid, from);
  } catch (err) {
    say(explain(err, `Stale checkpoint ${from}: it can no longer be read, so nothing was written`));
    return;
  }
  const body = { values, as_node: $("edit-node").value || undefined, checkpoint_id: from };
  let res;
  try {
    res = await api.updateState(tid, body);
  } catch (err) {
    say(explain(err, "The edit was refused and nothing was written"));
    return;
  }
  const id = res?.checkpoint?.checkpoint_id;
  S.want = id || null;
  await reloadThread();
  say(`Forked from ${from}: new checkpoint ${id} on a branch of its own. Replay from it to run on.`, "info");
}

// ---- start ----

async function fillRunForm() {
  try {
    S.assistants = await api.assistants();
  } catch (err) {
    say(explain(err, "Could not list the graphs"));
    return;
  }
  // The read-only graph holds threads no served graph has: it cannot run.
  S.assistants = S.assistants.filter((a) => a.graph_id !== READ_ONLY);
  clear($("run-graph"), S.assistants.map((a) => el("option", { value: a.graph_id }, a.graph_id)));
  await templateFor($("run-graph").value);
}

// templateFor fills the input box with the graph's input fields, empty.
async function templateFor(graphID) {
  if (!graphID) return;
  try {
    if (!S.schemas.has(graphID)) S.schemas.set(graphID, await api.schemas(graphID));
  } catch (_) { return; }
  const input = S.schemas.get(graphID)?.input_schema || {};
  // A graph's own example is a valid first run; else its fields, empty.
  if (Array.isArray(input.examples) && input.examples.length > 0) {
    $("run-input").value = JSON.stringify(input.examples[0], null, 2);
    return;
  }
  const props = input.properties || {};
  const zero = { string: "", array: [], object: {}, integer: 0, number: 0, boolean: false };
  const tmpl = {};
  for (const [k, p] of Object.entries(props)) tmpl[k] = p.type in zero ? structuredClone(zero[p.type]) : null;
  $("run-input").value = JSON.stringify(tmpl, null, 2);
}

function wire() {
  $("thread-search").addEventListener("input", renderThreads);
  $("more-threads").addEventListener("click", () => { S.listed += LIST_PAGE; renderThreads(); });
  $("status-filter").addEventListener("change", renderThreads);
  $("refresh").addEventListener("click", async () => { await loadThreads(); if (S.tid) await reloadThread(); });
  $("run-graph").addEventListener("change", (ev) => templateFor(ev.target.value));
  $("new-run-form").addEventListener("submit", (ev) => { ev.preventDefault(); newRun(false); });
  $("run-here").addEventListener("click", () => newRun(true));
  $("run-cancel").addEventListener("click", cancelRun);
  $("replay").addEventListener("click", replay);
  $("load-older").addEventListener("click", loadOlder);
  $("edit-form").addEventListener("submit", (ev) => { ev.preventDefault(); fork(); });
  $("chat-form").addEventListener("submit", (ev) => { ev.preventDefault(); sendChat(); });
  $("edit-field").addEventListener("change", (ev) => {
    const e = S.tl.byID.get(S.selected);
    const f = ev.target.value;
    if (e && f) $("edit-values").value = JSON.stringify({ [f]: e.state.values[f] }, null, 2);
  });
  $("expand-all").addEventListener("click", () => setOpen($("state-tree"), true));
  $("collapse-all").addEventListener("click", () => setOpen($("state-tree"), false));
  $("thread-list").addEventListener("keydown", (ev) => {
    const buttons = [...$("thread-list").querySelectorAll("button.thread")];
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1 }[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    const b = buttons[Math.max(0, Math.min(to, buttons.length - 1))];
    for (const x of buttons) x.tabIndex = x === b ? 0 : -1;
    b.focus();
  });
  $("timeline").addEventListener("keydown", (ev) => timeline.keys(ev, S.tl.entries, S.tl.byID, S.selected, select));
}

async function main() {
  $("api-info").textContent = `API ${apiBase()}`;
  wire();
  await fillRunForm();
  await loadThreads();
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("thread")) await openThread(hash.get("thread"), hash.get("checkpoint") || undefined);
  // A link to #thread=…&checkpoint=… opens it, also on a page already open.
  window.addEventListener("hashchange", () => {
    const h = new URLSearchParams(location.hash.slice(1));
    const tid = h.get("thread");
    if (tid && (tid !== S.tid || (h.get("checkpoint") && h.get("checkpoint") !== S.selected))) openThread(tid, h.get("checkpoint") || undefined);
  });
  document.body.dataset.ready = "true";
}

main();
