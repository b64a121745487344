// The run form: one field per property of a graph's input schema (JSON
// Schema, as GET /assistants/{id}/schemas gives it). Strings, numbers,
// booleans, enums and lists of strings get fields of their own, an object
// with properties a group of its fields (nested as deep as the schema);
// anything else a JSON box. Required properties are marked and checked.
// The form writes the run box's JSON, so a run from the form sends
// exactly what the same JSON typed in the box sends.

import { el } from "./dom.js";

/** kindOf says which field a property of the schema gets. */
export function kindOf(p) {
  if (!p || typeof p !== "object") return "json";
  if (Array.isArray(p.enum) && p.enum.length > 0 && p.enum.every((v) => typeof v === "string")) return "enum";
  switch (p.type) {
    case "string": return "string";
    case "integer": return "integer";
    case "number": return "number";
    case "boolean": return "boolean";
    case "array": return p.items?.type === "string" && !p.items.enum ? "strings" : "json";
    case "object": return p.properties && Object.keys(p.properties).length > 0 ? "object" : "json";
    default: return "json";
  }
}

/** fieldsOf lists the schema's properties in the schema's order. */
export function fieldsOf(schema) {
  const props = schema?.properties || {};
  const order = Array.isArray(schema?.["x-order"]) ? schema["x-order"].filter((k) => k in props) : [];
  for (const k of Object.keys(props)) if (!order.includes(k)) order.push(k);
  const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
  return order.map((name) => ({ name, prop: props[name], kind: kindOf(props[name]), required: required.has(name) }));
}

/**
 * normalize returns v with each null the schema says is a list made []
 * (Go writes a nil slice as null), in nested objects and lists too.
 */
export function normalize(v, schema) {
  if (!schema || typeof schema !== "object") return v;
  if (v === null) return schema.type === "array" ? [] : v;
  if (Array.isArray(v)) return schema.items ? v.map((x) => normalize(x, schema.items)) : v;
  if (typeof v === "object" && schema.properties) {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = normalize(x, schema.properties[k]);
    return out;
  }
  return v;
}

/**
 * zero is an empty value of the schema's type: "", 0, false, [] or {}
 * (an object's fields stay unwritten: a nested object's required fields
 * are asked for only once one of its fields is).
 */
export function zero(p) {
  switch (p?.type) {
    case "string": return "";
    case "integer": case "number": return 0;
    case "boolean": return false;
    case "array": return [];
    case "object": return {};
    default: return null;
  }
}

const HELP = {
  string: "text",
  integer: "a whole number",
  number: "a number",
  boolean: "true, false, or not set",
  enum: "one of the values",
  strings: "a list of text: one item a line",
  json: "JSON (this field's type has no field of its own)",
};

// A field's id: its path with dots made "__" (a dot in an id would read
// as a class in a CSS selector).
const idOf = (path) => `run-field-${path.replaceAll(".", "__")}`;

function control(f, path) {
  const id = idOf(path);
  const attrs = {
    id, "data-field": path, "data-kind": f.kind, "aria-describedby": `${id}-help`,
    "data-required": f.required ? "true" : undefined, "aria-required": f.required ? "true" : undefined,
    "data-list": f.prop?.type === "array" ? "true" : undefined,
  };
  switch (f.kind) {
    case "boolean":
      return el("select", attrs, el("option", { value: "" }, "(not set)"), el("option", { value: "true" }, "true"), el("option", { value: "false" }, "false"));
    case "enum":
      return el("select", attrs, el("option", { value: "" }, "(not set)"), f.prop.enum.map((v) => el("option", { value: v }, v)));
    case "integer":
    case "number":
      return el("input", { ...attrs, type: "number", step: f.kind === "integer" ? "1" : "any", inputmode: f.kind === "integer" ? "numeric" : "decimal" });
    case "strings":
      return el("textarea", { ...attrs, rows: 3, spellcheck: "false" });
    case "json":
      return el("textarea", { ...attrs, rows: 3, spellcheck: "false", class: "json" });
    default:
      return el("input", { ...attrs, type: "text", autocomplete: "off" });
  }
}

const mark = (f) => (f.required ? el("span", { class: "required" }, " (required)") : null);

/** build makes the form's fields for the schema (none: no properties); prefix is the path of a nested object's fields. */
export function build(schema, prefix = "") {
  return fieldsOf(schema).map((f) => {
    const path = prefix + f.name;
    const id = idOf(path);
    const desc = f.prop?.description ? `${f.prop.description} — ` : "";
    if (f.kind === "object") {
      return el("fieldset", { class: "field object", id, "data-group": path, "data-required": f.required ? "true" : undefined },
        el("legend", {}, f.name, mark(f)),
        f.prop.description ? el("p", { class: "help" }, f.prop.description) : null,
        build(f.prop, path + "."));
    }
    const c = control(f, path);
    c.schema = f.prop; // fill shows a nested list that is null as []
    return el("div", { class: "field", "data-field": path },
      el("label", { for: id }, f.name, mark(f)),
      c,
      el("p", { id: `${id}-help`, class: "help" }, desc + HELP[f.kind] + (f.required ? "; required" : "")));
  });
}

const parentOf = (path) => (path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : "");

function get(v, path) {
  let cur = v;
  for (const k of path.split(".")) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function set(v, path, x) {
  const keys = path.split(".");
  let cur = v;
  for (const k of keys.slice(0, -1)) cur = cur[k] ??= {};
  cur[keys.at(-1)] = x;
}

/**
 * fill sets the fields of form from the object v. It throws, naming the
 * field, when v has a key the form has no field for.
 */
export function fill(form, v) {
  const controls = [...form.querySelectorAll("[data-kind]")];
  const names = new Set(controls.map((c) => c.dataset.field));
  const groups = new Set([...form.querySelectorAll("[data-group]")].map((g) => g.dataset.group));
  const check = (obj, prefix) => {
    for (const [k, x] of Object.entries(obj)) {
      const path = prefix + k;
      if (groups.has(path)) {
        if (x === null || x === undefined) continue;
        if (typeof x !== "object" || Array.isArray(x)) throw new Error(`field ${path} holds ${JSON.stringify(x)}, not an object: edit it as JSON`);
        check(x, path + ".");
      } else if (!names.has(path)) {
        throw new Error(`the input writes ${path}, which the graph's input schema does not list: edit it as JSON`);
      }
    }
  };
  check(v, "");
  for (const c of controls) {
    const x = get(v, c.dataset.field);
    c.removeAttribute("aria-invalid");
    // A list that is null shows as the empty list it is; an absent field stays empty (not written).
    if (x === undefined || x === null) { c.value = x === null && c.dataset.kind === "json" && c.dataset.list ? "[]" : ""; continue; }
    switch (c.dataset.kind) {
      case "strings":
        if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && !s.includes("\n"))) throw new Error(`field ${c.dataset.field} is not a list of one-line texts: edit it as JSON`);
        c.value = x.join("\n");
        break;
      case "json":
        c.value = JSON.stringify(normalize(x, c.schema), null, 2);
        break;
      case "boolean":
        c.value = x === true ? "true" : x === false ? "false" : "";
        break;
      default:
        if (typeof x === "object") throw new Error(`field ${c.dataset.field} holds ${JSON.stringify(x)}, not a ${c.dataset.kind}: edit it as JSON`);
        c.value = String(x);
        if (c.value !== String(x)) throw new Error(`field ${c.dataset.field} cannot show ${JSON.stringify(x)}: edit it as JSON`);
    }
  }
}

// valueOf is what control c gives: a value, or undefined when left empty.
// It throws, naming the field, on a number or JSON that does not parse.
function valueOf(c) {
  const raw = c.value;
  switch (c.dataset.kind) {
    case "string":
    case "enum":
      return raw !== "" ? raw : undefined;
    case "boolean":
      return raw !== "" ? raw === "true" : undefined;
    case "integer":
    case "number": {
      if (raw.trim() === "") {
        if (c.validity?.badInput) throw new Error("not a number");
        return undefined;
      }
      const n = Number(raw);
      if (!Number.isFinite(n)) throw new Error(`${JSON.stringify(raw)} is not a number`);
      if (c.dataset.kind === "integer" && !Number.isInteger(n)) throw new Error(`${raw} is not a whole number`);
      return n;
    }
    case "strings": {
      const items = raw.split("\n").map((s) => s.trim()).filter(Boolean);
      return items.length ? items : undefined;
    }
    case "json":
      if (raw.trim() === "") return undefined;
      try { return JSON.parse(raw); } catch (err) { throw new Error(`not valid JSON (${err.message})`); }
  }
  return undefined;
}

/**
 * read returns the object of field writes the form gives: a field left
 * empty (or "not set") is not written, except a list inside a nested
 * object that is written or a required list, which is [] (the schema
 * says it is a list, and empty is a value of it). It
 * throws, naming the field, on a number or JSON that does not parse and
 * on a required field left empty (the top level's always, a nested
 * object's when that object is written), and marks that field invalid.
 */
export function read(form) {
  const out = {};
  const controls = [...form.querySelectorAll("[data-kind]")];
  const written = new Set([""]); // paths of the objects that hold a write
  const empty = [];
  for (const c of controls) {
    c.removeAttribute("aria-invalid");
    let x;
    try { x = valueOf(c); } catch (err) {
      c.setAttribute("aria-invalid", "true");
      throw new Error(`Field ${c.dataset.field}: ${err.message}. Nothing was started.`);
    }
    if (x === undefined) { empty.push(c); continue; }
    set(out, c.dataset.field, x);
    for (let p = parentOf(c.dataset.field); p !== ""; p = parentOf(p)) written.add(p);
  }
  const missing = (node, path) => {
    node.setAttribute("aria-invalid", "true");
    return new Error(`Field ${path} is required (the input schema says so)${parentOf(path) ? ` once ${parentOf(path)} is written` : ""}. Nothing was started.`);
  };
  for (const g of form.querySelectorAll("[data-group]")) {
    g.removeAttribute("aria-invalid");
    if (g.dataset.required && written.has(parentOf(g.dataset.group)) && !written.has(g.dataset.group)) throw missing(g, g.dataset.group);
  }
  for (const c of empty) {
    const parent = parentOf(c.dataset.field);
    if (!written.has(parent)) continue;
    // An empty list is a list: [] where a nested object or the schema needs one.
    if (c.dataset.list && (parent !== "" || c.dataset.required)) { set(out, c.dataset.field, []); continue; }
    if (c.dataset.required) throw missing(c, c.dataset.field);
  }
  return out;
}
