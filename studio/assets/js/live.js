// Auto-refresh: threads written and checkpoints added after the page
// opened (by the studio's runs, another client of the API, or another
// program on the same database) appear without a press of Refresh. Every
// POLL_MS the page reads the most recently updated threads (one small
// thread search) and the open thread's head; it reads the whole list or
// the open thread again only when one of them moved. The indicator says
// when it last looked; the checkbox pauses it.

import { api } from "./api.js";
import { $ } from "./dom.js";
import { explain, S, timeOfDay } from "./state.js";
import { loadThreads } from "./threads.js";
import { reloadThread } from "./app.js";

export const POLL_MS = 2000;
const RECENT = 20; // threads looked at each time: more moving at once still shows at the next look

let timer = 0;

function show(text, state) {
  $("live-status").textContent = text;
  $("live").dataset.state = state;
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(poll, POLL_MS);
}

/** startLive wires the checkbox and starts looking. */
export function startLive() {
  $("live-toggle").addEventListener("change", () => {
    if ($("live-toggle").checked) { show("Auto-refresh on", "on"); schedule(); } else { clearTimeout(timer); show("Auto-refresh paused", "paused"); }
  });
  show("Auto-refresh on", "on");
  schedule();
}

// moved reports whether a thread of recent is new or changed status or time.
function moved(recent) {
  const known = new Map(S.threads.map((t) => [t.thread_id, t]));
  return recent.filter((t) => {
    const k = known.get(t.thread_id);
    return !k || k.updated_at !== t.updated_at || k.status !== t.status;
  }).map((t) => t.thread_id);
}

async function poll() {
  if (!$("live-toggle").checked) return;
  // A hidden tab does not look; a streaming run refreshes the page itself.
  if (document.hidden || S.run) { schedule(); return; }
  $("live").dataset.state = "checking";
  try {
    const ids = moved(await api.recentThreads(RECENT));
    if (ids.length) await loadThreads();
    const tid = S.tid;
    if (tid && S.head && !S.run) {
      const head = await api.state(tid);
      const cur = S.head?.checkpoint?.checkpoint_id;
      if (S.tid === tid && !S.run && (ids.includes(tid) || head.checkpoint?.checkpoint_id !== cur)) await reloadThread();
    }
    show(`Auto-refresh on · looked at ${timeOfDay.format(new Date())}`, "on");
  } catch (err) {
    show(`Auto-refresh: ${explain(err, "could not look for changes")}; trying again`, "error");
  }
  schedule();
}
