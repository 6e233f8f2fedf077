// The admin API, as seen from the console: the token lives in this tab's sessionStorage only and is sent as
// a Bearer header; no cookies are set or read, so there is no CSRF surface.

const TOKEN_KEY = "pinset.adminToken";

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer (RFC 9457 problem details), a refused token, or a server that does not answer. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }

  get rule() {
    return this.problem.rule;
  }
}

const STANDARD_MEMBERS = new Set(["type", "title", "status", "detail", "rule", "instance"]);

/** The members of a problem beyond RFC 9457's and `rule` (e.g. the pins a host serves, for would-lock-out). */
export function extraMembers(problem) {
  return Object.entries(problem || {}).filter(([name]) => !STANDARD_MEMBERS.has(name));
}

/** A sentence for any error: what went wrong and, where possible, what to do. */
export function describe(error) {
  if (!(error instanceof ApiError)) return error && error.message ? error.message : String(error);
  const p = error.problem;
  switch (error.status) {
    case 0:
      return "The pinset server does not answer. Check that it is running and reachable, then retry.";
    case 401:
      return "The server refused the admin token (401). Log in again with a valid token.";
    case 403:
      return `This token may not do that (403 ${p.title || "Forbidden"}): ${p.detail || "ask for a token with access to this host"}.`;
    case 412:
      return "Someone else changed this host since you loaded it (412). Reload it to see their change, then try again.";
    default: {
      const title = p.title ? `${error.status} ${p.title}` : `HTTP ${error.status}`;
      return p.detail ? `${title}: ${p.detail}` : title;
    }
  }
}

/**
 * Calls the server. Returns {status, etag, data}; throws ApiError for every status >= 400 and for network
 * failures (status 0). `auth` adds the admin token; `ifMatch` sends the ETag a write is based on.
 */
export async function call(path, { method = "GET", body, ifMatch, auth = true, cache } = {}) {
  const headers = { Accept: "application/json, application/problem+json" };
  if (auth) {
    const value = token.get();
    if (value) headers.Authorization = `Bearer ${value}`;
  }
  if (ifMatch) headers["If-Match"] = ifMatch;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: cache || "no-store",
      signal: AbortSignal.timeout(15000),
    });
  } catch (cause) {
    throw new ApiError(0, { title: "No answer", detail: String(cause && cause.message) });
  }
  const text = await response.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    const problem = data && typeof data === "object" ? data : { title: response.statusText, detail: text.slice(0, 300) };
    const error = new ApiError(response.status, problem);
    if (response.status === 401 && auth) window.dispatchEvent(new CustomEvent("pinset:unauthorized"));
    throw error;
  }
  return { status: response.status, etag: response.headers.get("ETag"), data, text };
}

/** Like call, but a 404 answers null: how the console detects endpoints that newer servers add. */
export async function optional(path, options) {
  try {
    return await call(path, options);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 405)) return null;
    throw error;
  }
}

/**
 * The monitor's last full pass, read from the public /metrics (`pinset_monitor_pass_seconds` and `_hosts`):
 * `{ seconds, hosts }`, or null before the first pass ends or on a server without a monitor.
 */
export async function monitorPass() {
  try {
    const { data } = await call("/metrics", { auth: false });
    const value = (name) => {
      const line = String(data).split("\n").find((l) => l.startsWith(`${name} `));
      return line === undefined ? null : Number(line.split(" ")[1]);
    };
    const seconds = value("pinset_monitor_pass_seconds");
    return seconds === null ? null : { seconds, hosts: value("pinset_monitor_pass_hosts") };
  } catch {
    return null;
  }
}

export const hostPath = (host) => `/admin/hosts/${encodeURIComponent(host)}`;

/** Standard base64 → base64url without padding, as a pin appears in a DELETE path. */
export const pinPath = (sha256) => sha256.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** What the console learned about the server: features that other issues add (monitor, trust). */
export const features = { monitor: undefined };
