// The page's state and the helpers every view shares: what is open,
// the messages line, and how a thread's status and read-only reason read.

import { $ } from "./dom.js";
import { APIError } from "./api.js";

// One formatter for every time shown: toLocaleString builds one per call,
// which made a list of 1,000 threads take half a second.
export const dateTime = new Intl.DateTimeFormat([], { year: "numeric", month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
export const FIRST = 30; // checkpoints a thread opens on (more than the timeline shows): a long thread opens fast
export const timeOfDay = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
export const PAGE = 100; // checkpoints read at a time by Load older
export const LIST_PAGE = 100; // threads listed at a time
export const READ_ONLY = "read-only"; // the graph of threads no served graph has

export const S = {
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

export function say(text, kind = "error") {
  const m = $("message");
  m.className = "message" + (kind === "info" ? " info" : "");
  m.setAttribute("role", kind === "info" ? "status" : "alert");
  m.textContent = text;
  m.hidden = false;
}
export function quiet() { $("message").hidden = true; }
export function explain(err, what) {
  if (err instanceof APIError) return `${what}: ${err.message}` + (err.status ? ` (HTTP ${err.status})` : "");
  return `${what}: ${err.message || err}`;
}

/** readOnly is why a thread cannot be run or edited here, or "". */
export function readOnly(t) {
  return t?.metadata?.read_only_reason || "";
}

export function statusOf(t) {
  // A thread stopped before a node by interrupt_before has no interrupt
  // record but waits all the same.
  if (t.status === "idle" && (t.next || []).length > 0) return "paused";
  return t.status;
}

// parseObject reads a JSON object from a text box, or says what is wrong.
export function parseObject(text, what) {
  let v;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON (${err.message}). Nothing was changed.`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${what} must be a JSON object of field writes, like {"field": value}. Nothing was changed.`);
  return v;
}
