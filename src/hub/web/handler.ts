/**
 * The web side of the hub's listener (server.ts hands it every path it
 * does not own): `/`, `/ui/…` (pages.ts), `/login` and `/logout`.
 *
 * Reading needs a live read token (tokens.ts), as the API does: in an
 * `Authorization: Bearer` header, or in the `tend_token` cookie that the
 * sign-in form sets (HttpOnly, Secure, SameSite=Strict). Signing in and
 * out only sets or clears that cookie: nothing in the store is writable
 * from the web. Pages carry no script and a Content-Security-Policy that
 * allows none, no frames and no outside resources.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HubStore } from "../store/store.js";
import { tokenHash } from "../tokens.js";
import { STYLE_HASH } from "./html.js";
import { DEFAULT_PAGE_OPTIONS, fleetPage, loginPage, nodePage, type PageOptions, runPage } from "./pages.js";

export const TOKEN_COOKIE = "tend_token";

const SECURITY_HEADERS = {
  "content-security-policy": `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

function html(
  response: ServerResponse,
  status: number,
  body: string,
  extra: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    ...SECURITY_HEADERS,
    ...extra,
  });
  response.end(body);
}

function redirect(response: ServerResponse, location: string, extra: Record<string, string> = {}): void {
  response.writeHead(303, { location, "content-length": 0, ...SECURITY_HEADERS, ...extra });
  response.end();
}

/** The token a request carries (header first, then the cookie), or undefined. */
export function requestToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer ([\x21-\x7e]{1,512})$/.exec(request.headers.authorization ?? "")?.[1];
  if (bearer) return bearer;
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [name, value] = part.trim().split("=", 2);
    if (name === TOKEN_COOKIE && value && /^[A-Za-z0-9_-]{1,512}$/.test(value)) return value;
  }
  return undefined;
}

async function signedIn(store: HubStore, request: IncomingMessage): Promise<boolean> {
  const token = requestToken(request);
  return token !== undefined && (await store.tokenValid(tokenHash(token)));
}

function readForm(request: IncomingMessage, max: number): Promise<URLSearchParams | undefined> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        resolve(undefined);
        request.destroy();
        return;
      }
      parts.push(chunk);
    });
    request.once("end", () => resolve(new URLSearchParams(Buffer.concat(parts).toString("utf8"))));
    request.once("error", () => resolve(undefined));
  });
}

/** Whether a POST comes from the hub's own pages (by Sec-Fetch-Site, else no Origin or the same host). */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  const site = request.headers["sec-fetch-site"];
  if (site !== undefined) return site === "same-origin" || site === "none";
  if (origin === undefined || origin === "null") return origin === undefined;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

export function isWebPath(pathname: string): boolean {
  return (
    pathname === "/" ||
    pathname === "/ui" ||
    pathname.startsWith("/ui/") ||
    pathname === "/login" ||
    pathname === "/logout"
  );
}

/**
 * Answers a web request. `options` sets staleness and the plots' span;
 * `now` is for tests.
 */
export async function handleWeb(
  request: IncomingMessage,
  response: ServerResponse,
  store: HubStore,
  url: URL,
  options: Partial<PageOptions> = {},
): Promise<void> {
  const method = request.method ?? "GET";
  const path = url.pathname;
  if (path === "/login" && method === "POST") {
    const form = sameOrigin(request) ? await readForm(request, 4096) : undefined;
    const token = form?.get("token")?.trim() ?? "";
    if (/^[A-Za-z0-9_-]{1,512}$/.test(token) && (await store.tokenValid(tokenHash(token)))) {
      redirect(response, "/ui/", {
        "set-cookie": `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; Secure; SameSite=Strict`,
      });
      return;
    }
    html(response, 401, loginPage("That token is not a live read token."));
    return;
  }
  if (path === "/logout" && method === "POST") {
    redirect(response, "/login", {
      "set-cookie": `${TOKEN_COOKIE}=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0`,
    });
    return;
  }
  if (method !== "GET" && method !== "HEAD") {
    html(response, 405, loginPage("The web pages are read-only."), { allow: "GET, HEAD" });
    return;
  }
  if (path === "/login") {
    html(response, 200, loginPage());
    return;
  }
  if (!(await signedIn(store, request))) {
    if (path === "/" || path === "/ui" || path === "/ui/") redirect(response, "/login");
    else html(response, 401, loginPage("Sign in with a read token to see this page."));
    return;
  }
  const pageOptions: PageOptions = { ...DEFAULT_PAGE_OPTIONS, now: new Date(), ...options };
  if (path === "/" || path === "/ui") {
    redirect(response, "/ui/");
    return;
  }
  const parts = path.split("/").filter((p) => p !== "");
  let body: string | undefined;
  try {
    const id = parts[2] === undefined ? undefined : decodeURIComponent(parts[2]);
    if (parts.length === 1) body = await fleetPage(store, url, pageOptions);
    else if (parts.length === 3 && parts[1] === "nodes" && id)
      body = await nodePage(store, id, url, pageOptions);
    else if (parts.length === 3 && parts[1] === "runs" && id) body = await runPage(store, id, url);
  } catch (error) {
    if (error instanceof URIError) body = undefined;
    else throw error;
  }
  if (body === undefined) html(response, 404, loginPage("There is no such page."));
  else html(response, 200, body);
}
