// Building DOM nodes safely: every string becomes a text node or an attribute value, never markup.
// Nothing in the console parses a string as markup (ConsoleTests looks for the HTML-string sinks).

const SVG_NS = "http://www.w3.org/2000/svg";

function build(element, attributes, children) {
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) {
      if (typeof value !== "function") throw new TypeError(`${name}: event handlers are functions, never strings`);
      element.addEventListener(name.slice(2), value);
    } else if (name === "dataset") {
      Object.assign(element.dataset, value);
    } else {
      element.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Appends children: nodes as they are, strings and numbers as text, arrays flattened, null skipped. */
export function append(parent, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** An HTML element: h("a", {href: "#/hosts"}, "Hosts"). */
export function h(tag, attributes, ...children) {
  return build(document.createElement(tag), attributes, children);
}

/** An SVG element, same calling convention as h. */
export function s(tag, attributes, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attributes, children);
}

/** Replaces every child of parent with children. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** A "Loading…" line that screen readers announce. */
export function loading(text) {
  return h("p", { class: "loading", role: "status" }, text);
}

/** A short time: 2026-11-23 14:05 UTC; "—" when absent. */
export function when(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** "in 13 days", "2 hours ago". */
export function relative(iso, now = Date.now()) {
  const ms = new Date(iso).getTime() - now;
  if (Number.isNaN(ms)) return "";
  const abs = Math.abs(ms);
  const [unit, size] = abs >= 86400000 ? ["day", 86400000] : abs >= 3600000 ? ["hour", 3600000] : ["minute", 60000];
  const n = Math.max(1, Math.round(abs / size));
  const text = `${n} ${unit}${n === 1 ? "" : "s"}`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** A status badge: kind is ok, warn, bad or info. */
export function badge(text, kind = "info", label) {
  return h("span", { class: `badge ${kind}`, "aria-label": label }, text);
}
