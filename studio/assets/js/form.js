// The run form: one field per property of a graph's input schema (JSON
// Schema, as GET /assistants/{id}/schemas gives it). Strings, numbers,
// booleans, enums and lists of strings get fields of their own; anything
// else a JSON box. The form writes the run box's JSON, so a run from the
// form sends exactly what the same JSON typed in the box sends.

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
    default: return "json";
  }
}

/** fieldsOf lists the schema's properties in the schema's order. */
export function fieldsOf(schema) {
  const props = schema?.properties || {};
  const order = Array.isArray(schema?.["x-order"]) ? schema["x-order"].filter((k) => k in props) : [];
  for (const k of Object.keys(props)) if (!order.includes(k)) order.push(k);
  return order.map((name) => ({ name, prop: props[name], kind: kindOf(props[name]) }));
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

function control(f) {
  const id = `run-field-${f.name}`;
  const attrs = { id, "data-field": f.name, "data-kind": f.kind, "aria-describedby": `${id}-help` };
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

/** build makes the form's fields for the schema (none: no properties). */
export function build(schema) {
  return fieldsOf(schema).map((f) => {
    const id = `run-field-${f.name}`;
    const desc = f.prop?.description ? `${f.prop.description} — ` : "";
    return el("div", { class: "field", "data-field": f.name },
      el("label", { for: id }, f.name),
      control(f),
      el("p", { id: `${id}-help`, class: "help" }, desc + HELP[f.kind]));
  });
}

/**
 * fill sets the fields of form from the object v. It throws, naming the
 * field, when v has a key the form has no field for.
 */
export function fill(form, v) {
  const controls = [...form.querySelectorAll("[data-kind]")];
  const names = new Set(controls.map((c) => c.dataset.field));
  for (const k of Object.keys(v)) {
    if (!names.has(k)) throw new Error(`the input writes ${k}, which the graph's input schema does not list: edit it as JSON`);
  }
  for (const c of controls) {
    const x = v[c.dataset.field];
    c.removeAttribute("aria-invalid");
    if (x === undefined || x === null) { c.value = ""; continue; }
    switch (c.dataset.kind) {
      case "strings":
        if (!Array.isArray(x) || !x.every((s) => typeof s === "string" && !s.includes("\n"))) throw new Error(`field ${c.dataset.field} is not a list of one-line texts: edit it as JSON`);
        c.value = x.join("\n");
        break;
      case "json":
        c.value = JSON.stringify(x, null, 2);
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

/**
 * read returns the object of field writes the form gives: a field left
 * empty (or "not set") is not written. It throws, naming the field, on a
 * number or JSON that does not parse (and marks that field invalid).
 */
export function read(form) {
  const out = {};
  for (const c of form.querySelectorAll("[data-kind]")) {
    const name = c.dataset.field;
    const raw = c.value;
    c.removeAttribute("aria-invalid");
    const bad = (why) => { c.setAttribute("aria-invalid", "true"); return new Error(`Field ${name}: ${why}. Nothing was started.`); };
    switch (c.dataset.kind) {
      case "string":
        if (raw !== "") out[name] = raw;
        break;
      case "enum":
        if (raw !== "") out[name] = raw;
        break;
      case "boolean":
        if (raw !== "") out[name] = raw === "true";
        break;
      case "integer":
      case "number": {
        if (raw.trim() === "") { if (c.validity?.badInput) throw bad("not a number"); break; }
        const n = Number(raw);
        if (!Number.isFinite(n)) throw bad(`${JSON.stringify(raw)} is not a number`);
        if (c.dataset.kind === "integer" && !Number.isInteger(n)) throw bad(`${raw} is not a whole number`);
        out[name] = n;
        break;
      }
      case "strings": {
        const items = raw.split("\n").map((s) => s.trim()).filter(Boolean);
        if (items.length) out[name] = items;
        break;
      }
      case "json":
        if (raw.trim() === "") break;
        try { out[name] = JSON.parse(raw); } catch (err) { throw bad(`not valid JSON (${err.message})`); }
        break;
    }
  }
  return out;
}
