// The graph of GET /assistants/{id}/graph drawn as SVG: a layered
// layout, top to bottom, from __start__ (back edges, such as a loop from
// replan to execute, curve up the right side).

import { svg } from "./dom.js";

const START = "__start__";
const END = "__end__";
const ROW = 62;
const GAP = 34;
const H = 30;

function widthOf(label) {
  return Math.max(70, label.length * 7.4 + 26);
}

/** layout gives each node a layer, an x and a width, and marks back edges. */
export function layout(drawing) {
  const ids = drawing.nodes.map((n) => n.id);
  const out = new Map(ids.map((id) => [id, []]));
  for (const e of drawing.edges) if (out.has(e.source) && out.has(e.target)) out.get(e.source).push(e.target);

  // Depth-first from the start: an edge to a node still on the stack is a back edge.
  const back = new Set();
  const state = new Map();
  const visit = (id) => {
    state.set(id, 1);
    for (const t of out.get(id) || []) {
      if (state.get(t) === 1) back.add(`${id}\u0000${t}`);
      else if (!state.has(t)) visit(t);
    }
    state.set(id, 2);
  };
  if (out.has(START)) visit(START);
  for (const id of ids) if (!state.has(id)) visit(id);

  // Longest path over the forward edges.
  const layer = new Map(ids.map((id) => [id, 0]));
  for (let changed = true, n = 0; changed && n <= ids.length; n++) {
    changed = false;
    for (const e of drawing.edges) {
      if (back.has(`${e.source}\u0000${e.target}`) || !layer.has(e.source) || !layer.has(e.target)) continue;
      if (layer.get(e.target) < layer.get(e.source) + 1) { layer.set(e.target, layer.get(e.source) + 1); changed = true; }
    }
  }
  if (layer.has(END)) {
    let deepest = 0;
    for (const [id, l] of layer) if (id !== END) deepest = Math.max(deepest, l);
    layer.set(END, Math.max(layer.get(END), deepest + 1));
  }
  const rows = [];
  for (const id of ids) (rows[layer.get(id)] ||= []).push(id);
  const pos = new Map();
  let width = 0;
  for (const row of rows.filter(Boolean)) {
    const w = row.reduce((s, id) => s + widthOf(id), 0) + GAP * (row.length - 1);
    width = Math.max(width, w);
  }
  width += 140; // room for back edges and labels
  rows.forEach((row, l) => {
    if (!row) return;
    const w = row.reduce((s, id) => s + widthOf(id), 0) + GAP * (row.length - 1);
    let x = (width - 120 - w) / 2 + 20;
    for (const id of row) {
      pos.set(id, { x, y: 16 + l * ROW, w: widthOf(id) });
      x += widthOf(id) + GAP;
    }
  });
  return { pos, back, width, height: 16 + rows.length * ROW - ROW + H + 16 };
}

/**
 * draw returns the SVG of drawing, with classes from marks: visited and
 * next are Sets of node ids, current and running node ids or null,
 * taken a Set of "source\0target" edges.
 */
export function draw(drawing, marks) {
  const { pos, back, width, height } = layout(drawing);
  // A group, not an image: its nodes are buttons of their own.
  const root = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "group", "aria-labelledby": "graph-svg-title" },
    svg("title", { id: "graph-svg-title" }, marks.title || "The graph"),
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "9", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" },
      svg("path", { d: "M0,0 L10,5 L0,10 z" }))));
  for (const e of drawing.edges) {
    const a = pos.get(e.source), b = pos.get(e.target);
    if (!a || !b) continue;
    const k = `${e.source}\u0000${e.target}`;
    let d, lx, ly;
    if (back.has(k) || e.source === e.target) {
      const x1 = a.x + a.w, y1 = a.y + H / 2, x2 = b.x + b.w, y2 = b.y + H / 2;
      const bulge = Math.max(x1, x2) + 40 + Math.abs(y1 - y2) * 0.15;
      d = `M${x1},${y1} C${bulge},${y1} ${bulge},${y2} ${x2},${y2}`;
      lx = bulge - 8; ly = (y1 + y2) / 2;
    } else {
      const x1 = a.x + a.w / 2, y1 = a.y + H, x2 = b.x + b.w / 2, y2 = b.y;
      const my = (y1 + y2) / 2;
      d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
      lx = (x1 + x2) / 2 + 4; ly = my;
    }
    const cls = ["edge", e.conditional ? "conditional" : "", marks.taken?.has(k) ? "taken" : ""].filter(Boolean).join(" ");
    root.append(svg("g", { class: cls, "data-source": e.source, "data-target": e.target },
      svg("path", { d, "marker-end": "url(#arrow)" }),
      e.data ? svg("text", { x: lx, y: ly }, e.data) : null));
  }
  for (const n of drawing.nodes) {
    const p = pos.get(n.id);
    const cls = ["node",
      n.id === START || n.id === END ? "terminal" : "",
      marks.visited?.has(n.id) ? "visited" : "",
      marks.next?.has(n.id) ? "next" : "",
      marks.failed?.has(n.id) ? "failed" : "",
      marks.current === n.id ? "current" : "",
      marks.running === n.id ? "running" : ""].filter(Boolean).join(" ");
    const terminal = n.id === START || n.id === END;
    const pick = () => marks.onNode?.(n.id);
    root.append(svg("g", {
      class: cls, "data-node": n.id,
      // Each node is a button: it selects the checkpoint its last run wrote.
      tabindex: terminal || !marks.onNode ? undefined : "0",
      role: terminal || !marks.onNode ? undefined : "button",
      "aria-label": terminal ? undefined : `node ${n.id}` + [marks.visited?.has(n.id) ? "on the path" : "", marks.next?.has(n.id) ? "next" : "",
        marks.failed?.has(n.id) ? "failed" : "", marks.running === n.id ? "running" : ""].filter(Boolean).map((x) => `, ${x}`).join(""),
      onclick: terminal ? undefined : pick,
      onkeydown: terminal ? undefined : (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); pick(); } },
    },
      svg("rect", { x: p.x, y: p.y, width: p.w, height: H, rx: n.id === START || n.id === END ? 15 : 5 }),
      svg("text", { x: p.x + p.w / 2, y: p.y + H / 2 + 4, "text-anchor": "middle" }, n.id)));
  }
  return root;
}
