// The trace view: the spans the studio's server recorded for one run
// (package telemetry through the runtime's observer) as a waterfall —
// the run, its steps, tasks, checkpoint writes, model and tool calls,
// each with its start, duration, status, retries, tokens and model.

import { el } from "./dom.js";

const base = (() => {
  const u = new URL("traces", document.baseURI);
  return u.pathname;
})();

/**
 * fetchTraces reads the runs recorded for thread tid: {recording, runs}
 * (recording is false when the server records no traces).
 */
export async function fetchTraces(tid) {
  let res;
  try {
    res = await fetch(`${base}?thread=${encodeURIComponent(tid)}`);
  } catch (_) { return { recording: false, runs: [] }; }
  if (!res.ok) return { recording: false, runs: [] };
  return res.json();
}

const ms = (a, b) => new Date(b) - new Date(a);

function fmt(d) {
  if (d < 1) return `${d.toFixed(2)} ms`;
  if (d < 1000) return `${d.toFixed(d < 10 ? 1 : 0)} ms`;
  return `${(d / 1000).toFixed(2)} s`;
}

// details lists what a span says beyond its name and time.
function details(s) {
  const a = s.attributes || {};
  const out = [];
  const model = a["gen_ai.response.model"] || a["gen_ai.request.model"];
  if (model) out.push(`model ${model}`);
  if (a["gen_ai.provider.name"]) out.push(`provider ${a["gen_ai.provider.name"]}`);
  if (a["gen_ai.usage.input_tokens"] !== undefined || a["gen_ai.usage.output_tokens"] !== undefined) {
    out.push(`tokens ${a["gen_ai.usage.input_tokens"] ?? "?"} in, ${a["gen_ai.usage.output_tokens"] ?? "?"} out`);
  }
  if (a["gen_ai.tool.name"]) out.push(`tool ${a["gen_ai.tool.name"]}`);
  if (a["stategraph.task.retries"]) out.push(`${a["stategraph.task.retries"]} retr${a["stategraph.task.retries"] === 1 ? "y" : "ies"}`);
  if (a["stategraph.task.attempts"] > 1) out.push(`${a["stategraph.task.attempts"]} attempts`);
  if (a["stategraph.outcome"]) out.push(String(a["stategraph.outcome"]));
  if (a["stategraph.checkpoint.bytes"] !== undefined) out.push(`${a["stategraph.checkpoint.bytes"]} bytes`);
  for (const ev of s.events || []) if (ev.name !== "exception") out.push(ev.name);
  return out.join(" · ");
}

/**
 * traceView returns the waterfall of the run runID among traces, the
 * span that wrote checkpoint cid marked; or a note when none was
 * recorded.
 */
export function traceView(traces, runID, cid) {
  if (!traces.recording) return el("p", { class: "muted" }, "This server records no traces (studio.WithTraces; stategraph studio records the runs it executes).");
  // A trace holds the run, or (exported by another program) an outer span with the run in it.
  const tr = traces.runs.find((t) => t.run_id === runID) ||
    traces.runs.find((t) => t.spans.some((s) => s.attributes?.["stategraph.run.id"] === runID));
  if (!runID) return el("p", { class: "muted" }, "No run wrote this checkpoint (an edit of the state).");
  if (!tr) {
    return el("p", { class: "muted" }, `No trace recorded for run ${runID}. The studio traces the runs it executes; another program's runs show here when its OpenTelemetry exporter sends to this studio: OTEL_EXPORTER_OTLP_ENDPOINT=${location.origin}.`);
  }
  const depth = new Map();
  const byID = new Map(tr.spans.map((s) => [s.span_id, s]));
  const depthOf = (s) => {
    if (depth.has(s.span_id)) return depth.get(s.span_id);
    const p = byID.get(s.parent_id);
    const d = p ? depthOf(p) + 1 : 0;
    depth.set(s.span_id, d);
    return d;
  };
  const total = Math.max(ms(tr.start, tr.end), 0.001);
  const rows = tr.spans.map((s) => {
    const off = ms(tr.start, s.start), dur = ms(s.start, s.end);
    const bar = el("span", { class: "bar" + (s.error ? " error" : "") });
    // CSSOM, not a style attribute: the page's CSP allows no inline style.
    bar.style.left = `${(off / total) * 100}%`;
    bar.style.width = `${Math.max((dur / total) * 100, 0.4)}%`;
    // The write of a checkpoint (the run's own span names its last checkpoint too).
    const written = s.name.startsWith("checkpoint") ? s.attributes?.["stategraph.checkpoint.id"] : undefined;
    const name = el("span", { class: "span-name" }, s.name);
    name.style.paddingLeft = `${depthOf(s) * 0.9}rem`;
    return el("tr", { class: s.error ? "error" : "", "data-span": s.name, "data-checkpoint": written },
      el("td", {}, name),
      el("td", { class: "lane" }, bar),
      el("td", { class: "num" }, `+${fmt(off)}`),
      el("td", { class: "num" }, fmt(dur)),
      el("td", {}, s.error ? `error: ${s.error}` : "ok"),
      el("td", { class: "span-details" }, details(s)));
  });
  const kept = traces.kept === "memory" ? " Kept in memory only: gone when the studio stops." : "";
  const table = el("table", { class: "waterfall", "data-run": runID },
    el("caption", { class: "help" }, `Run ${runID} of graph ${tr.graph || "?"}: ${tr.spans.length} spans in ${fmt(total)}.${kept}`),
    el("thead", {}, el("tr", {}, ...["Span", "Waterfall", "Start", "Duration", "Status", "Details"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, ...rows));
  markCheckpoint(table, cid);
  return table;
}

/**
 * markCheckpoint marks, in a waterfall traceView made, the span that
 * wrote checkpoint cid (another checkpoint of the same run moves the mark
 * without drawing the run again).
 */
export function markCheckpoint(table, cid) {
  for (const tr of table.querySelectorAll("tr.mine")) {
    tr.classList.remove("mine");
    tr.querySelector(".this-checkpoint")?.remove();
  }
  const tr = [...table.querySelectorAll("tr[data-checkpoint]")].find((x) => x.dataset.checkpoint === cid);
  if (!tr) return;
  tr.classList.add("mine");
  tr.querySelector(".span-details").prepend(el("span", { class: "this-checkpoint" }, "this checkpoint · "));
}
