// stategraph studio: the page's views and actions over package server's
// API. Views: threads, a thread's timeline, a checkpoint's state and
// diff, the graph. Actions: run, answer, fork, replay, cancel.

import { api, apiBase, stream } from "./api.js";
import { $, el, clear } from "./dom.js";
import * as timeline from "./timeline.js";
import { setOpen } from "./values.js";
import { fetchTraces } from "./trace.js";
import { explain, FIRST, LIST_PAGE, PAGE, parseObject, quiet, READ_ONLY, readOnly, S, say, statusOf } from "./state.js";
import { loadThreads, renderThreads, threadKeys } from "./threads.js";
import { forgetCheckpoint, renderCheckpoint, renderGraph } from "./checkpoint.js";
import { chatView, messagesOf, reviewOf } from "./chat.js";
import { limitOf, pendingView, recursionText } from "./pending.js";
import { runInput, templateFor, wireRunForm } from "./runform.js";
import { wireViews } from "./apiviews.js";
import { startLive } from "./live.js";

// ---- a thread ----

function graphOf(thread) {
  const g = thread?.metadata?.graph_id;
  if (g) return g;
  return S.assistants.length === 1 ? S.assistants[0].graph_id : null;
}

// assistantsRead settles when the list of graphs is read: a thread whose
// record names no graph is of the only graph served, known only then.
let assistantsRead = Promise.resolve();
async function graphOfRead(thread) {
  if (!thread?.metadata?.graph_id) await assistantsRead;
  return graphOf(thread);
}

async function drawingOf(graphID) {
  if (!graphID) return null;
  if (!S.drawings.has(graphID)) S.drawings.set(graphID, await api.graph(graphID));
  return S.drawings.get(graphID);
}

export async function openThread(tid, checkpointID) {
  quiet();
  if (S.tid !== tid) {
    // Another thread: nothing of the last one stays on screen while this one loads.
    S.selected = null; S.want = null; S.thread = null; S.head = null;
    S.tl = { entries: [], byID: new Map() };
    S.older = []; S.more = false;
    forgetCheckpoint();
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
export async function reloadThread() {
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
    // The graph's drawing is read as soon as the record names the graph,
    // beside the history (not after it).
    const record = api.thread(tid);
    const drawn = record.then(async (th) => drawingOf(await graphOfRead(th))).catch((err) => err);
    [thread, hist, head, traces] = await Promise.all([record, api.history(tid, FIRST), api.state(tid), fetchTraces(tid)]);
    const drawErr = await drawn;
    if (drawErr instanceof Error && S.tid === tid) say(explain(drawErr, `Could not read the graph ${graphOf(thread)}`));
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
  S.graphID = await graphOfRead(thread);
  if (S.tid !== tid) return;
  S.head = head;
  // The newest page, and the older pages loaded before (without the
  // checkpoints the newest page has again).
  const ids = new Set(hist.map((st) => st.checkpoint?.checkpoint_id));
  // More than a page written since the last read leaves a gap between the
  // newest page and the older ones: drop those (Load older reads them again).
  const oldestParent = hist.at(-1)?.parent_checkpoint?.checkpoint_id;
  if (S.older.length > 0 && !S.older.some((st) => ids.has(st.checkpoint?.checkpoint_id) || st.checkpoint?.checkpoint_id === oldestParent)) S.older = [];
  if (S.older.length === 0) S.more = hist.length === FIRST;
  S.tl = timeline.build([...hist, ...S.older.filter((st) => !ids.has(st.checkpoint?.checkpoint_id))]);
  const headID = head.checkpoint?.checkpoint_id || null;
  // A checkpoint asked for (a fork just written) is selected once a read
  // has it; a read that began before it was written keeps the selection.
  if (S.want && S.tl.byID.has(S.want)) { S.selected = S.want; S.want = null; }
  else if (following && !S.want) S.selected = headID;
  if (!S.selected || !S.tl.byID.has(S.selected)) S.selected = headID;
  const t = S.threads.find((x) => x.thread_id === tid);
  if (t) { t.status = thread.status; t.next = head.next || []; t.updated_at = thread.updated_at; renderThreads(); }
  renderThread();
}

// unreadable shows thread tid as the open one with only the reason it
// could not be read: no header, timeline, graph or checkpoint of it (nor
// of the thread open before).
function unreadable(tid, why) {
  S.thread = null; S.head = null; S.selected = null; S.want = null;
  S.tl = { entries: [], byID: new Map() };
  forgetCheckpoint();
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
  const opened = $("timeline").dataset.thread !== th.thread_id;
  timeline.render($("timeline"), S.tl.entries, S.head?.checkpoint?.checkpoint_id, S.selected, select);
  $("timeline").dataset.thread = th.thread_id;
  $("load-older").hidden = !S.more;
  $("thread-pane").removeAttribute("aria-busy");
  renderCheckpoint();
  // A thread just opened shows its selected checkpoint (the newest, at the bottom).
  if (opened) document.getElementById("cp-" + S.selected)?.scrollIntoView({ block: "nearest" });
  performance.mark("studio:thread");
}

export function select(id, fromClick) {
  if (!S.tl.byID.has(id)) return;
  S.selected = id;
  // Only the selection moved: mark two rows rather than render the list
  // again (a thread of 1,000 checkpoints moves at key-repeat speed).
  timeline.mark($("timeline"), S.selected);
  if (fromClick) $("timeline").focus();
  renderCheckpoint();
  // After the writes: one layout for the whole move, not one before them too.
  document.getElementById("cp-" + id)?.scrollIntoView({ block: "nearest" });
  linkLater();
}

// linkLater puts the selection in the address once the keys rest: a
// replaceState per key cost more than the rest of a move (~8 ms).
let linkTimer = 0;
function linkLater() {
  clearTimeout(linkTimer);
  linkTimer = setTimeout(() => {
    if (S.tid && S.selected) history.replaceState(null, "", `#thread=${encodeURIComponent(S.tid)}&checkpoint=${encodeURIComponent(S.selected)}`);
  }, 200);
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

async function newRun(onThisThread) {
  quiet();
  const graphID = $("run-graph").value;
  let input;
  try {
    input = runInput();
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

// loadOlder reads the page of checkpoints before the oldest loaded; the
// rows in view stay where they are.
let loadingOlder = false;
async function loadOlder() {
  const tid = S.tid;
  const oldest = S.tl.entries[0]?.id;
  if (!tid || !oldest || loadingOlder) return;
  loadingOlder = true;
  let page;
  try {
    page = await api.history(tid, PAGE, oldest);
  } catch (err) { say(explain(err, `Could not read the older checkpoints of thread ${tid}`)); return; } finally { loadingOlder = false; }
  if (S.tid !== tid) return;
  S.older = [...S.older, ...page];
  S.more = page.length === PAGE;
  const tl = $("timeline");
  const fromBottom = tl.scrollHeight - tl.scrollTop;
  await reloadThread();
  tl.scrollTop = tl.scrollHeight - fromBottom;
}

// Scrolling the timeline to its top reads the older checkpoints.
function olderOnScroll() {
  if (S.more && $("timeline").scrollTop < 40) loadOlder();
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
  // The read-only graph holds threads no served graph has: it cannot run.
  const read = api.assistants().then((list) => { S.assistants = list.filter((a) => a.graph_id !== READ_ONLY); });
  assistantsRead = read.catch(() => {});
  try {
    await read;
  } catch (err) {
    say(explain(err, "Could not list the graphs"));
    return;
  }
  clear($("run-graph"), S.assistants.map((a) => el("option", { value: a.graph_id }, a.graph_id)));
  await templateFor($("run-graph").value);
}

function wire() {
  $("thread-search").addEventListener("input", renderThreads);
  $("more-threads").addEventListener("click", () => { S.listed += LIST_PAGE; renderThreads(); });
  $("status-filter").addEventListener("change", renderThreads);
  $("refresh").addEventListener("click", async () => { await loadThreads(); if (S.tid) await reloadThread(); });
  $("run-graph").addEventListener("change", (ev) => templateFor(ev.target.value));
  wireRunForm();
  wireViews();
  $("new-run-form").addEventListener("submit", (ev) => { ev.preventDefault(); newRun(false); });
  $("run-here").addEventListener("click", () => newRun(true));
  $("run-cancel").addEventListener("click", cancelRun);
  $("replay").addEventListener("click", replay);
  $("load-older").addEventListener("click", loadOlder);
  $("timeline").addEventListener("scroll", olderOnScroll, { passive: true });
  $("edit-form").addEventListener("submit", (ev) => { ev.preventDefault(); fork(); });
  $("chat-form").addEventListener("submit", (ev) => { ev.preventDefault(); sendChat(); });
  $("edit-field").addEventListener("change", (ev) => {
    const e = S.tl.byID.get(S.selected);
    const f = ev.target.value;
    if (e && f) $("edit-values").value = JSON.stringify({ [f]: e.state.values[f] }, null, 2);
  });
  $("expand-all").addEventListener("click", () => setOpen($("state-tree"), true));
  $("collapse-all").addEventListener("click", () => setOpen($("state-tree"), false));
  $("thread-list").addEventListener("keydown", threadKeys);
  $("timeline").addEventListener("keydown", (ev) => timeline.keys(ev, S.tl.entries, S.tl.byID, S.selected, select));
}

async function main() {
  $("api-info").textContent = `API ${apiBase()}`;
  wire();
  // The run form and the thread list load side by side; a thread named
  // in the address comes first (it is what was asked for), the list (one
  // big search) after its reads.
  const hash = new URLSearchParams(location.hash.slice(1));
  const form = fillRunForm(); // first: a thread whose record names no graph waits for the list of graphs
  const opening = hash.get("thread") ? openThread(hash.get("thread"), hash.get("checkpoint") || undefined) : null;
  await Promise.all([form, opening ? opening.then(loadThreads) : loadThreads()]);
  // A link to #thread=…&checkpoint=… opens it, also on a page already open.
  window.addEventListener("hashchange", () => {
    const h = new URLSearchParams(location.hash.slice(1));
    const tid = h.get("thread");
    if (tid && (tid !== S.tid || (h.get("checkpoint") && h.get("checkpoint") !== S.selected))) openThread(tid, h.get("checkpoint") || undefined);
  });
  startLive();
  document.body.dataset.ready = "true";
}

main();
