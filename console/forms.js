// Shared pieces of the edit forms: field errors from 422 answers, busy buttons, pin inputs.
import { ApiError, describe, extraMembers } from "./api.js";
import { h, replace } from "./dom.js";

/** A labelled field: the label, the control, and a slot for its error (announced when filled). */
export function field(id, label, control, help) {
  control.id = id;
  const error = h("p", { class: "field-error", id: `${id}-error`, role: "alert" });
  const describedBy = [help ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(" ");
  control.setAttribute("aria-describedby", describedBy);
  return {
    element: h("div", { class: "field" },
      h("label", { for: id }, label), control, help ? h("p", { class: "muted", id: `${id}-help` }, help) : null, error),
    control,
    error,
  };
}

/** Shows an error answer next to the field it is about (by its `rule`), else in the form's own slot. */
export function showError(error, slots, fallback) {
  for (const slot of [...Object.values(slots), fallback]) {
    replace(slot);
    const box = slot.closest(".field");
    box?.classList.remove("invalid");
    box?.querySelector("input, select, textarea")?.removeAttribute("aria-invalid");
  }
  const rule = error instanceof ApiError ? error.rule : undefined;
  const slot = (rule && slots[rule]) || slots["*"] || fallback;
  const parts = [];
  if (rule) parts.push(h("strong", { class: "rule" }, rule), " ");
  parts.push(describe(error));
  const extra = error instanceof ApiError ? extraMembers(error.problem) : [];
  const details = extra.map(([name, value]) => h("div", { class: "problem-extra" },
    h("span", { class: "muted" }, `${label(name)}: `),
    Array.isArray(value)
      ? h("ul", { class: "mono" }, value.map((item) => h("li", {}, typeof item === "string" ? item : JSON.stringify(item))))
      : h("span", { class: "mono" }, typeof value === "string" ? value : JSON.stringify(value))));
  replace(slot, parts, details);
  slot.closest(".field")?.classList.add("invalid");
  const control = slot.closest(".field")?.querySelector("input, select, textarea");
  control?.setAttribute("aria-invalid", "true");
}

function label(name) {
  return { pins: "Pins the host serves", served: "Pins the host serves", servedPins: "Pins the host serves" }[name] || name;
}

/** Runs `work` with the button disabled and marked busy; returns its result. */
export async function busy(button, work) {
  const text = button.textContent;
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  button.textContent = `${text}…`;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
    button.textContent = text;
  }
}

/** A <select> of options [value, text]. */
export function select(options, value) {
  return h("select", {}, options.map(([v, text]) => h("option", { value: v, selected: v === value }, text)));
}

export const ROLES = [["current", "current (served now)"], ["backup", "backup (held in reserve)"], ["future", "future (planned rotation)"]];
export const TYPES = [["spki", "spki (public key)"], ["certificate", "certificate (whole certificate)"]];

/** The rules of PROTOCOL §4 and where each one's error goes in a pin form. */
export const PIN_RULES = ["invalidPin", "duplicatePin", "expiredPin", "tooManyPins", "backupRuleViolated", "would-lock-out", "wouldLockOut"];

/** An RFC 3339 time from a <input type="datetime-local"> value (local time), or undefined when empty. */
export function isoFromLocal(value) {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
