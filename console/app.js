// The console's shell: log-in, navigation (hash routes), and a page per route.
import { ApiError, call, describe, token } from "./api.js";
import { h, replace } from "./dom.js";
import { hostsPage } from "./hosts.js";
import { hostPage } from "./host.js";
import { logPage } from "./log.js";
import { reportsPage } from "./reports.js";
import { trustPage } from "./trust.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const logoutButton = document.getElementById("logout");
let notice = "";

const routes = [
  [/^#\/hosts\/([^/]+)$/, (match) => hostPage(main, decodeURIComponent(match[1]))],
  [/^#\/reports$/, () => reportsPage(main)],
  [/^#\/trust$/, () => trustPage(main)],
  [/^#\/log$/, () => logPage(main)],
  [/^#\/hosts$/, () => hostsPage(main)],
];

function loginPage() {
  nav.hidden = true;
  logoutButton.hidden = true;
  document.title = "Log in · pinset console";
  const input = h("input", {
    id: "token", name: "token", type: "password", autocomplete: "off", spellcheck: "false", required: true,
    "aria-describedby": "token-help",
  });
  const error = h("p", { class: "error", id: "login-error", role: "alert" }, notice);
  const button = h("button", { type: "submit" }, "Log in");
  const form = h("form", { class: "card narrow", "aria-labelledby": "login-title" },
    h("h1", { id: "login-title", tabindex: "-1" }, "pinset console"),
    h("label", { for: "token" }, "Admin token"),
    input,
    h("p", { id: "token-help", class: "muted" },
      "A token from `pinset token create` (or the one `pinset serve --dev` printed). It stays in this tab ",
      "only (sessionStorage) and is sent as a Bearer header; log out or close the tab to forget it."),
    error,
    button);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    replace(error, "Checking the token…");
    token.set(value);
    try {
      await call("/admin/hosts");
      notice = "";
      if (!location.hash || location.hash === "#/login") location.hash = "#/hosts";
      else render();
    } catch (failure) {
      token.clear();
      replace(error, describe(failure));
      button.disabled = false;
      button.removeAttribute("aria-busy");
      input.focus();
    }
  });
  replace(main, form);
  input.focus();
}

function markCurrent() {
  for (const link of nav.querySelectorAll("a")) {
    const here = location.hash === link.getAttribute("href")
      || (link.getAttribute("href") === "#/hosts" && location.hash.startsWith("#/hosts/"));
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
}

/** Shows the page of the current hash; pages render their own loading and error states. */
export async function render() {
  if (!token.get()) return loginPage();
  nav.hidden = false;
  logoutButton.hidden = false;
  markCurrent();
  const hash = location.hash || "#/hosts";
  const route = routes.find(([pattern]) => pattern.test(hash));
  if (!route) {
    location.replace("#/hosts");
    return;
  }
  try {
    await route[1](hash.match(route[0]));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return; // the unauthorized handler shows the log-in
    replace(main, h("div", { class: "card" },
      h("h1", { tabindex: "-1" }, "Something went wrong"),
      h("p", { class: "error", role: "alert" }, describe(error)),
      h("button", { type: "button", onclick: () => render() }, "Retry")));
  }
  const heading = main.querySelector("h1");
  if (heading && document.activeElement === document.body) heading.focus({ preventScroll: true });
}

logoutButton.addEventListener("click", () => {
  token.clear();
  notice = "Logged out. The token was removed from this tab.";
  location.hash = "#/hosts";
  loginPage();
});

window.addEventListener("pinset:unauthorized", () => {
  token.clear();
  notice = "The server refused the admin token (401). Log in again.";
  loginPage();
});

window.addEventListener("hashchange", () => render());
render();
