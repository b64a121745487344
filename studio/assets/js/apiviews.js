// The views of the rest of the Agent Server API beside the threads: the
// assistants (their config), the long-term store (namespaces, the items
// of one, search) and the crons. Each is read when its view opens, from
// the same API the rest of the page uses.

import { api } from "./api.js";
import { $, el, clear } from "./dom.js";
import { dateTime, explain, quiet, say } from "./state.js";

const VIEWS = ["threads", "assistants", "store", "crons"];

const when = (t) => (t ? dateTime.format(new Date(t)) : "—");
const json = (v) => el("pre", {}, JSON.stringify(v ?? null, null, 2));

function dl(rows) {
  return el("dl", {}, rows.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

/** show makes view the one on screen and reads what it shows. */
export async function show(view) {
  quiet();
  for (const v of VIEWS) {
    $(`show-${v}`).setAttribute("aria-pressed", String(v === view));
    const pane = v === "threads" ? document.querySelector("main.layout") : $(`view-${v}`);
    pane.hidden = v !== view;
  }
  if (view === "assistants") await assistants();
  if (view === "store") await store();
  if (view === "crons") await crons();
}

async function assistants() {
  const list = $("assistants-list");
  let as;
  try {
    as = await api.assistants();
  } catch (err) { say(explain(err, "Could not list the assistants")); return; }
  $("assistants-count").textContent = `${as.length} assistant${as.length === 1 ? "" : "s"}`;
  clear(list, as.map((a) => el("li", { "data-assistant": a.assistant_id, "data-graph": a.graph_id },
    el("h3", {}, a.name || a.assistant_id),
    dl([
      ["assistant_id", a.assistant_id],
      ["graph", a.graph_id],
      ["version", `${a.version ?? "—"} (this API keeps one version of each assistant)`],
      ["description", a.description || "—"],
      ["created", when(a.created_at)],
      ["updated", when(a.updated_at)],
    ]),
    el("h4", {}, "Config"), el("pre", { class: "config" }, JSON.stringify(a.config ?? {}, null, 2)),
    el("h4", {}, "Context"), json(a.context),
    el("h4", {}, "Metadata"), json(a.metadata))));
  list.dataset.count = String(as.length);
}

// A namespace is written with its labels joined by dots, as the store
// encodes it.
const nsText = (ns) => ns.join(".");
const nsOf = (text) => text.split(".").map((s) => s.trim()).filter(Boolean);

async function store() {
  let info;
  try {
    info = await api.info();
  } catch (err) { say(explain(err, "Could not read the server's features")); return; }
  const served = !!info?.flags?.store;
  $("store-none").hidden = served;
  $("store-body").hidden = !served;
  $("view-store").dataset.served = String(served);
  if (!served) {
    $("store-none").textContent = "This server serves no long-term store (package server's WithItemStore; stategraph serve and studio serve one beside the checkpoints).";
    return;
  }
  let nss;
  try {
    nss = (await api.namespaces())?.namespaces || [];
  } catch (err) { say(explain(err, "Could not list the store's namespaces")); return; }
  const list = $("store-namespaces");
  const current = list.dataset.current || "";
  clear(list, nss.map((ns) => el("li", {},
    el("button", { type: "button", "data-namespace": nsText(ns), "aria-current": String(nsText(ns) === current), onclick: () => openNamespace(ns) }, nsText(ns)))));
  list.dataset.count = String(nss.length);
  if (nss.length === 0) clear(list, el("li", { class: "muted" }, "No namespaces: the store holds no items."));
  await search();
}

function openNamespace(ns) {
  const list = $("store-namespaces");
  list.dataset.current = nsText(ns);
  for (const b of list.querySelectorAll("button")) b.setAttribute("aria-current", String(b.dataset.namespace === nsText(ns)));
  $("store-prefix").value = nsText(ns);
  $("store-filter").value = "";
  $("store-query").value = "";
  return search();
}

async function search() {
  quiet();
  const body = { namespace_prefix: nsOf($("store-prefix").value), limit: 100 };
  const f = $("store-filter").value.trim();
  if (f) {
    let filter;
    try { filter = JSON.parse(f); } catch (err) { say(`The filter is not valid JSON (${err.message}). Nothing was searched.`); return; }
    if (filter === null || typeof filter !== "object" || Array.isArray(filter)) { say(`The filter must be a JSON object, like {"plan": "pro"}. Nothing was searched.`); return; }
    body.filter = filter;
  }
  const q = $("store-query").value.trim();
  if (q) body.query = q;
  let res;
  try {
    res = await api.searchItems(body);
  } catch (err) { say(explain(err, "The store search was refused")); return; }
  const items = res?.items || [];
  const where = body.namespace_prefix.length ? ` under ${nsText(body.namespace_prefix)}` : "";
  $("store-count").textContent = `${items.length} item${items.length === 1 ? "" : "s"}${where}` + (items.length === 100 ? " (the first 100)" : "");
  const list = $("store-items");
  clear(list, items.map((it) => el("li", { "data-namespace": nsText(it.namespace), "data-key": it.key },
    el("h3", {}, `${nsText(it.namespace)} / ${it.key}`),
    dl([["created", when(it.created_at)], ["updated", when(it.updated_at)], ...(it.score != null ? [["score", String(it.score)]] : [])]),
    el("pre", { class: "value" }, JSON.stringify(it.value, null, 2)))));
  list.dataset.count = String(items.length);
}

async function crons() {
  let cs;
  try {
    cs = await api.crons();
  } catch (err) { say(explain(err, "Could not list the crons")); return; }
  $("crons-count").textContent = `${cs.length} cron${cs.length === 1 ? "" : "s"}` + (cs.length === 100 ? " (the first 100)" : "");
  const list = $("crons-list");
  clear(list, cs.map((c) => el("li", { "data-cron": c.cron_id, "data-enabled": String(c.enabled !== false) },
    el("h3", {}, c.cron_id),
    dl([
      ["schedule", `${c.schedule}${c.timezone ? ` (${c.timezone})` : ""}`],
      ["enabled", c.enabled === false ? "no" : "yes"],
      ["assistant", c.assistant_id],
      ["thread", c.thread_id || "a new thread each run"],
      ["next run", when(c.next_run_date)],
      ["ends", when(c.end_time)],
      ["on run completed", c.on_run_completed || "—"],
      ["created", when(c.created_at)],
    ]),
    el("h4", {}, "Payload"), el("pre", { class: "payload" }, JSON.stringify(c.payload ?? {}, null, 2)),
    el("h4", {}, "Metadata"), json(c.metadata))));
  list.dataset.count = String(cs.length);
}

/** wireViews connects the view buttons and the store's search. */
export function wireViews() {
  for (const v of VIEWS) $(`show-${v}`).addEventListener("click", () => show(v));
  $("store-search").addEventListener("submit", (ev) => { ev.preventDefault(); search(); });
}
