// The HTTP API of package server (LangGraph's Agent Server API): the
// page's only source of data.

const base = (document.querySelector('meta[name="stategraph-api"]')?.content || "").replace(/\/$/, "");

/** APIError is a refused request, with the server's own words. */
export class APIError extends Error {
  constructor(status, detail, path) {
    super(detail);
    this.status = status;
    this.path = path;
  }
}

/** The API base the page talks to, for display. */
export function apiBase() {
  return base || window.location.origin;
}

async function detailOf(res) {
  const text = await res.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body.detail === "string") return body.detail;
  } catch (_) { /* not JSON: use the text */ }
  return text || res.statusText;
}

/** request sends one API request and decodes its JSON answer. */
export async function request(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(base + path, init);
  } catch (err) {
    throw new APIError(0, `the API at ${apiBase()} did not answer (${err.message})`, path);
  }
  if (!res.ok) throw new APIError(res.status, await detailOf(res), path);
  if (res.status === 204) return null;
  return res.json();
}

const enc = encodeURIComponent;
const LISTED = ["thread_id", "created_at", "updated_at", "metadata", "status"];

export const api = {
  assistants: () => request("POST", "/assistants/search", { limit: 100 }),
  graph: (id) => request("GET", `/assistants/${enc(id)}/graph`),
  schemas: (id) => request("GET", `/assistants/${enc(id)}/schemas`),
  // select asks for the fields the list shows (LangGraph's API; a server
  // without it sends every field, values too).
  threads: () => request("POST", "/threads/search", { limit: 1000, sort_by: "updated_at", sort_order: "desc", select: LISTED }),
  recentThreads: (n) => request("POST", "/threads/search", { limit: n, sort_by: "updated_at", sort_order: "desc", select: LISTED }),
  thread: (tid) => request("GET", `/threads/${enc(tid)}`),
  createThread: (graphID) => request("POST", "/threads", { graph_id: graphID }),
  state: (tid, cid) => request("GET", `/threads/${enc(tid)}/state` + (cid ? `/${enc(cid)}` : "")),
  history: (tid, limit, before) => request("POST", `/threads/${enc(tid)}/history`, before ? { limit, before } : { limit }),
  updateState: (tid, body) => request("POST", `/threads/${enc(tid)}/state`, body),
  info: () => request("GET", "/info"),
  namespaces: () => request("POST", "/store/namespaces", { limit: 100 }),
  searchItems: (body) => request("POST", "/store/items/search", body),
  crons: () => request("POST", "/runs/crons/search", { limit: 100 }),
  cancel: (tid, rid) => request("POST", `/threads/${enc(tid)}/runs/${enc(rid)}/cancel?action=interrupt`),
};

/**
 * stream starts a run on thread tid and calls onEvent(name, data) for
 * each SSE event as it arrives. It resolves when the stream ends.
 */
export async function stream(tid, body, onEvent) {
  let res;
  try {
    res = await fetch(`${base}/threads/${enc(tid)}/runs/stream`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new APIError(0, `the API at ${apiBase()} did not answer (${err.message})`, "/runs/stream");
  }
  if (!res.ok) throw new APIError(res.status, await detailOf(res), "/runs/stream");
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let name = "message";
  let data = [];
  const dispatch = () => {
    if (data.length > 0) {
      let value = data.join("\n");
      try { value = JSON.parse(value); } catch (_) { /* keep the text */ }
      onEvent(name, value);
    }
    name = "message";
    data = [];
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, "");
      buf = buf.slice(nl + 1);
      if (line === "") dispatch();
      else if (line.startsWith(":")) continue; // heartbeat
      else if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
  }
  dispatch();
}
