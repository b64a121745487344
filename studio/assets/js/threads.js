// The thread list: every thread from one thread search, 100 rows at a
// time, one Tab stop walked with the arrow keys.

import { api } from "./api.js";
import { $, el, keyed } from "./dom.js";
import { dateTime, explain, LIST_PAGE, readOnly, S, say, statusOf } from "./state.js";
import { openThread } from "./app.js";

// ---- threads ----

export async function loadThreads() {
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

export function renderThreads() {
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

/** threadKeys moves the focus in the thread list: ↑ ↓ Home End. */
export function threadKeys(ev) {
  const buttons = [...$("thread-list").querySelectorAll("button.thread")];
  const i = buttons.indexOf(document.activeElement);
  if (i < 0) return;
  const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1 }[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  const b = buttons[Math.max(0, Math.min(to, buttons.length - 1))];
  for (const x of buttons) x.tabIndex = x === b ? 0 : -1;
  b.focus();
}
