// A checkpoint's values: the diff against its parent, path by path, and
// the state as a collapsible tree.

import { el } from "./dom.js";

const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const key = (path, k) => (path === "" ? String(k) : `${path}.${k}`);

/**
 * diff lists what changed from a to b: {path, kind, before, after} with
 * kind added, removed, changed or appended (a list that grew at its end:
 * one row for the list, then one per new element).
 */
export function diff(a, b) {
  const out = [];
  walk("", a, b, out);
  return out;
}

function walk(path, a, b, out) {
  if (same(a, b)) return;
  if (a === undefined) { out.push({ path, kind: "added", after: b }); return; }
  if (b === undefined) { out.push({ path, kind: "removed", before: a }); return; }
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(key(path, k), a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (b.length > a.length && a.every((v, i) => same(v, b[i]))) {
      out.push({ path, kind: "appended", after: b.length - a.length });
      for (let i = a.length; i < b.length; i++) out.push({ path: key(path, i), kind: "added", after: b[i] });
      return;
    }
    if (byID(a) && byID(b)) { walkByID(path, a, b, out); return; }
    for (let i = 0; i < Math.max(a.length, b.length); i++) walk(key(path, i), a[i], b[i], out);
    return;
  }
  out.push({ path, kind: "changed", before: a, after: b });
}

// byID reports whether every element of list is an object with an id
// (a string or number) of its own: such lists are compared element by
// id, so a step replaced in the middle of a plan is one removed and one
// added element, not a change of every later position.
function byID(list) {
  if (list.length === 0) return true;
  const seen = new Set();
  for (const v of list) {
    if (!isObj(v) || (typeof v.id !== "string" && typeof v.id !== "number") || seen.has(v.id)) return false;
    seen.add(v.id);
  }
  return true;
}

const idKey = (path, id) => `${path}[id=${id}]`;

function walkByID(path, a, b, out) {
  const before = new Map(a.map((v) => [v.id, v]));
  const after = new Map(b.map((v) => [v.id, v]));
  const rows = out.length;
  for (const v of a) if (!after.has(v.id)) out.push({ path: idKey(path, v.id), kind: "removed", before: v });
  for (const v of b) {
    if (!before.has(v.id)) out.push({ path: idKey(path, v.id), kind: "added", after: v });
    else walk(idKey(path, v.id), before.get(v.id), v, out);
  }
  if (out.length === rows) {
    // The same elements in another order.
    out.push({ path, kind: "reordered", before: a.map((v) => v.id), after: b.map((v) => v.id) });
  }
}

const show = (v) => (typeof v === "string" ? JSON.stringify(v) : JSON.stringify(v, null, 1));

/** diffTable renders diff(a, b) as a table, or says nothing changed. */
export function diffTable(changes, hasParent) {
  if (!hasParent) return el("p", { class: "muted" }, "The first checkpoint of the thread: no parent to compare with.");
  if (changes.length === 0) return el("p", { class: "muted" }, "No field changed.");
  const rows = changes.map((c) => {
    let detail;
    switch (c.kind) {
      case "added": detail = el("pre", {}, "= " + show(c.after)); break;
      case "removed": detail = el("pre", {}, "was " + show(c.before)); break;
      case "appended": detail = el("code", {}, `+${c.after} element${c.after === 1 ? "" : "s"}`); break;
      default: detail = el("pre", {}, `${show(c.before)} → ${show(c.after)}`);
    }
    return el("tr", { class: c.kind },
      el("td", { class: "path" }, el("code", {}, c.path)),
      el("td", { class: c.kind }, c.kind),
      el("td", {}, detail));
  });
  return el("table", {},
    el("caption", { class: "help" }, `${changes.length} change${changes.length === 1 ? "" : "s"}`),
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Field"), el("th", { scope: "col" }, "Change"), el("th", { scope: "col" }, "Detail"))),
    el("tbody", {}, ...rows));
}

function leafText(v) {
  if (v === null) return el("span", { class: "null" }, "null");
  switch (typeof v) {
    case "string": return el("span", { class: "str" }, JSON.stringify(v));
    case "number": return el("span", { class: "num" }, String(v));
    case "boolean": return el("span", { class: "bool" }, String(v));
    default: return el("span", {}, JSON.stringify(v));
  }
}

/**
 * tree renders v as nested <details>: objects and lists fold, the
 * paths in changed (a Set) are marked. Top-level fields start open.
 */
export function tree(v, changed) {
  const root = el("div", {});
  if (!isObj(v)) { root.append(leafText(v)); return root; }
  for (const k of Object.keys(v).sort()) root.append(node(k, k, v[k], changed, 0));
  return root;
}

function touched(path, changed) {
  for (const p of changed) if (p === path || p.startsWith(path + ".") || p.startsWith(path + "[")) return true;
  return false;
}

function node(label, path, v, changed, depth) {
  const mark = touched(path, changed) ? " changed" : "";
  if (!isObj(v) && !Array.isArray(v)) {
    return el("div", { class: "leaf" + mark }, el("span", { class: "key" }, label), ": ", leafText(v));
  }
  const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x]) : Object.keys(v).sort().map((k) => [k, v[k]]);
  const count = Array.isArray(v) ? `[${v.length} item${v.length === 1 ? "" : "s"}]` : `{${entries.length} key${entries.length === 1 ? "" : "s"}}`;
  const d = el("details", { class: mark.trim() },
    el("summary", {}, el("span", { class: "key" }, label), " ", el("span", { class: "count" }, count)));
  // A changed top-level field starts open, unless it is long: building a
  // thousand rows on every move of the selection would stall the keys.
  if (depth === 0 && mark && entries.length <= 50) d.open = true;
  // Children are built when first opened: a long history of big states
  // stays cheap to show.
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [k, x] of entries) d.append(node(k, key(path, k), x, changed, depth + 1));
  };
  if (d.open) build();
  d.addEventListener("toggle", build);
  d.build = build;
  return d;
}

/** setOpen opens or folds every <details> under root. */
export function setOpen(root, open) {
  // Opening builds children, which may add more details: repeat until none is left closed.
  for (let pass = 0; pass < 50; pass++) {
    const list = [...root.querySelectorAll("details")].filter((d) => d.open !== open);
    if (list.length === 0) return;
    for (const d of list) { if (open && d.build) d.build(); d.open = open; }
    if (!open) return;
  }
}
