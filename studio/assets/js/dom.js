// A small helper to build DOM nodes without innerHTML: every value is
// text, never markup.

const SVG = "http://www.w3.org/2000/svg";

function build(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** el makes an HTML element with attributes and children. */
export function el(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** svg makes an SVG element with attributes and children. */
export function svg(tag, attrs, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

/** $ finds an element by id. */
export const $ = (id) => document.getElementById(id);

/** clear empties a node and appends the children given. */
export function clear(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return node;
}

/**
 * keyed makes parent's children the nodes made for items, in order,
 * keeping each existing child whose key and signature are unchanged (so a
 * re-render does not replace the node under a pointer, the focus or a
 * screen reader). item: {key, sig, make() → Node, update(node)}.
 */
export function keyed(parent, items) {
  const old = new Map();
  for (const c of [...parent.children]) old.set(c.dataset.key, c);
  const nodes = items.map((it) => {
    let n = old.get(it.key);
    if (!n || n.dataset.sig !== it.sig) {
      n = it.make();
      n.dataset.key = it.key;
      n.dataset.sig = it.sig;
    }
    it.update?.(n);
    return n;
  });
  nodes.forEach((n, i) => {
    if (parent.children[i] !== n) parent.insertBefore(n, parent.children[i] || null);
  });
  while (parent.children.length > nodes.length) parent.lastElementChild.remove();
}
