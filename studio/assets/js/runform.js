// The run box: the graph's example input as JSON, and a form of its
// input schema's fields (form.js) that writes that JSON, so a run from
// the form sends exactly what the same JSON sends.

import { api } from "./api.js";
import { $, clear } from "./dom.js";
import * as form from "./form.js";
import { parseObject, quiet, S, say } from "./state.js";

// templateFor fills the input box with the graph's example input (or its
// fields, empty) and builds the form of its input schema's fields.
export async function templateFor(graphID) {
  if (!graphID) return;
  try {
    if (!S.schemas.has(graphID)) S.schemas.set(graphID, await api.schemas(graphID));
  } catch (_) { return; }
  if ($("run-graph").value !== graphID) return; // another graph was chosen meanwhile
  const input = S.schemas.get(graphID)?.input_schema || {};
  const fields = form.build(input);
  clear($("run-form-fields"), fields);
  $("run-form-fields").dataset.graph = graphID;
  $("run-mode-form").disabled = fields.length === 0;
  // A graph's own example is a valid first run; else its fields, empty.
  let tmpl;
  if (Array.isArray(input.examples) && input.examples.length > 0) {
    tmpl = form.normalize(input.examples[0], input); // a list is [], never null
  } else {
    tmpl = {};
    for (const [k, p] of Object.entries(input.properties || {})) tmpl[k] = form.zero(p);
  }
  $("run-input").value = JSON.stringify(tmpl, null, 2);
  // The form when the schema has fields and shows the example; else JSON.
  let fits = fields.length > 0;
  try { if (fits) form.fill($("run-form-fields"), tmpl); } catch (_) { fits = false; }
  setMode(fits ? "form" : "json");
}

const formMode = () => $("run-mode-form").checked;

// setMode shows the form or the JSON box.
function setMode(mode) {
  $("run-mode-form").checked = mode === "form";
  $("run-mode-json").checked = mode !== "form";
  $("run-form-fields").hidden = mode !== "form";
  $("run-json").hidden = mode === "form";
  $("new-run-form").dataset.mode = mode;
}

// syncJSON writes the form's field writes into the JSON box (it throws,
// naming the field, when one does not parse).
function syncJSON() {
  $("run-input").value = JSON.stringify(form.read($("run-form-fields")), null, 2);
}

// switchMode moves what is typed from one mode to the other; what cannot
// move (invalid JSON, a field the form lacks) is said, and the mode stays.
function switchMode(mode) {
  quiet();
  try {
    if (mode === "form") form.fill($("run-form-fields"), parseObject($("run-input").value || "{}", "The input"));
    else syncJSON();
  } catch (err) {
    say(`Cannot switch to ${mode === "form" ? "the form" : "JSON"}: ${err.message.replace(/\.? Nothing was (changed|started)\.$/, "")}. The input stays as it was.`);
    setMode(mode === "form" ? "json" : "form");
    return;
  }
  setMode(mode);
}

/** runInput is the run's input: the form's (written to the JSON box) or the box's. */
export function runInput() {
  if (formMode()) syncJSON();
  return parseObject($("run-input").value || "{}", "The input");
}

/** wireRunForm connects the mode switch and the form's fields. */
export function wireRunForm() {
  $("run-mode-form").addEventListener("change", () => switchMode("form"));
  $("run-mode-json").addEventListener("change", () => switchMode("json"));
  // Each change of a field is written to the JSON box at once (a field
  // that does not parse yet waits, marked, until it does or a run asks).
  $("run-form-fields").addEventListener("input", () => { try { syncJSON(); } catch (_) { /* marked invalid */ } });
}
