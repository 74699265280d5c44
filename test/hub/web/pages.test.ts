/**
 * The hub's web pages, against a hub on loopback with a generated fleet
 * in SQLite (20 nodes, 30 days, hostile names and messages on one node):
 * first over plain HTTPS (sign-in, cookies, refusals, escaping, headers),
 * then in Debian's headless Chromium, checking what the pages show.
 * Screenshots are kept as artifacts in a temp dir whose path is printed
 * (or in $TEND_ARTIFACTS when set). The browser part skips with the reason
 * when chromium or playwright-core is absent.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { HubStore } from "../../../src/hub/store/store.js";
import { createToken, revokeToken } from "../../../src/hub/tokens.js";
import { escapeHtml } from "../../../src/hub/web/html.js";
import { fillDays, historyPlot } from "../../../src/hub/web/plot.js";
import { makeDatabase, startTestHub, type TestHub } from "../harness.js";
import { type Browser, browserUnavailable, launchBrowser } from "./browser.js";
import { fillFleet, HOSTILE_MESSAGE, HOSTILE_NAME, type NodeKind, nodeName } from "./fill.js";

const NODES = 20;
const DAYS = 30;
const db = makeDatabase("sqlite");
let store: HubStore;
let hub: TestHub;
let token = "";
let revoked = "";
let ids: Record<NodeKind, string[]>;
let base = "";

before(async () => {
  store = await db.open();
  ids = await fillFleet(store, { nodes: NODES, days: DAYS, promises: 10, now: new Date(), hostile: true });
  token = (await createToken(store, "web test")).token;
  const old = await createToken(store, "revoked");
  await revokeToken(store, old.id);
  revoked = old.token;
  hub = await startTestHub(store);
  base = `https://127.0.0.1:${hub.hub.port}`;
});

after(async () => {
  await hub?.close();
  await store?.close().catch(() => {});
  db.stop();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function request(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${path}`,
      { method: options.method ?? "GET", headers: options.headers, rejectUnauthorized: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("rendering", () => {
  test("escapeHtml leaves no markup", () => {
    assert.equal(
      escapeHtml(`<a href="x" onclick='y'>&\`\u0001`),
      "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&#96;\ufffd",
    );
  });

  test("the plot has one group per day, empty days included", () => {
    const days = fillDays(
      [{ day: "2026-11-20", runs: 3, kept: 1, repaired: 4, notKept: 2 }],
      7,
      new Date("2026-11-22T10:00:00Z"),
    );
    assert.deepEqual(
      days.map((d) => d.day),
      ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21", "2026-11-22"],
    );
    const svg = historyPlot(days, "<x>");
    assert.equal(svg.match(/<g class="day"/g)?.length, 7);
    assert.match(svg, /data-day="2026-11-20" data-repaired="4" data-failed="2"/);
    assert.match(svg, /aria-label="&lt;x&gt;"/);
  });
});

describe("over HTTPS", () => {
  test("without a token the fleet page sends to sign-in and a node page is refused", async () => {
    const home = await request("/ui/");
    assert.equal(home.status, 303);
    assert.equal(home.headers.location, "/login");
    const node = await request(`/ui/nodes/${encodeURIComponent(ids.failed[0] ?? "")}`);
    assert.equal(node.status, 401);
    assert.doesNotMatch(node.body, /web-0/);
    const old = await request("/ui/", { headers: { cookie: `tend_token=${revoked}` } });
    assert.equal(old.status, 303, "a revoked token is no token");
  });

  test("signing in sets an HttpOnly, Secure, SameSite cookie; a bad token does not", async () => {
    const bad = await request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=tend_nope_nope",
    });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers["set-cookie"], undefined);
    const good = await request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
    });
    assert.equal(good.status, 303);
    const cookie = String(good.headers["set-cookie"]);
    assert.match(cookie, /^tend_token=tend_/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /Secure/);
    assert.match(cookie, /SameSite=Strict/);
    const foreign = await request("/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: new URLSearchParams({ token }).toString(),
    });
    assert.equal(foreign.status, 401, "a sign-in posted from another site is refused");
  });

  test("pages are read-only, script-free and escape node strings", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const fleet = await request("/ui/", { headers: auth });
    assert.equal(fleet.status, 200);
    assert.match(String(fleet.headers["content-security-policy"]), /default-src 'none'/);
    assert.equal(fleet.headers["x-content-type-options"], "nosniff");
    assert.doesNotMatch(fleet.body, /<script|<img|onerror="/i);
    assert.ok(fleet.body.includes(escapeHtml(HOSTILE_NAME)));
    const failed = ids.failed.find((_, i) => i === 0) ?? "";
    const node = await request(`/ui/nodes/${encodeURIComponent(failed)}`, { headers: auth });
    assert.equal(node.status, 200);
    assert.doesNotMatch(node.body, /<script|<img/i);
    assert.ok(node.body.includes(escapeHtml(HOSTILE_MESSAGE)));
    for (const method of ["POST", "PUT", "DELETE"]) {
      const answer = await request("/ui/", { method, headers: auth });
      assert.equal(answer.status, 405, method);
    }
    assert.equal((await request("/ui/nodes/nope", { headers: auth })).status, 404);
    assert.equal((await request("/ui/nodes/%E0%A4%A", { headers: auth })).status, 404);
  });

  test("the history API behind the plots", async () => {
    const answer = await request(`/api/v1/history?days=${DAYS}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(answer.status, 200);
    const { days } = JSON.parse(answer.body) as { days: { day: string; runs: number }[] };
    assert.ok(days.length >= DAYS - 1 && days.length <= DAYS + 1, String(days.length));
    assert.equal(
      days.reduce((n, d) => n + d.runs, 0),
      (NODES / 4) * 3 * DAYS + (NODES / 4) * (DAYS - 3),
    );
    const one = await request(`/api/v1/history?node=${encodeURIComponent(ids.kept[0] ?? "")}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal((JSON.parse(one.body) as { days: unknown[] }).days.length, DAYS);
  });
});

describe("in Chromium", () => {
  const reason = browserUnavailable();
  let browser: Browser | undefined;
  const shots = process.env.TEND_ARTIFACTS
    ? join(process.env.TEND_ARTIFACTS, "hub-web")
    : mkdtempSync(join(tmpdir(), "tend-hub-web-screenshots-"));
  if (reason) rmSync(shots, { recursive: true, force: true });
  else mkdirSync(shots, { recursive: true });

  before(async () => {
    if (!reason) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    if (!reason) console.log(`hub web screenshots: ${shots}`);
  });

  test("sign in, then the fleet at a glance, failures first", async (t) => {
    if (reason || !browser) return t.skip(reason);
    const page = await browser.context.newPage();
    page.on("dialog", (d) => void d.dismiss());
    await page.goto(`${base}/ui/`);
    assert.match(page.url(), /\/login$/);
    await page.fill("input[name=token]", "tend_wrong_token");
    await page.click("button[type=submit]");
    assert.match((await page.textContent("#error")) ?? "", /not a live read token/);
    await page.fill("input[name=token]", token);
    await page.click("main button[type=submit]");
    await page.waitForURL(/\/ui\/$/);
    await page.screenshot({ path: join(shots, "fleet.png"), fullPage: true });
    assert.equal(await page.title(), "Fleet · tend hub");
    assert.equal(await page.locator("#nodes tbody tr").count(), NODES);
    const statuses = await page.locator("#nodes tbody tr td:first-child").allTextContents();
    assert.deepEqual(statuses, [
      ...Array<string>(5).fill("failed"),
      ...Array<string>(5).fill("stale"),
      ...Array<string>(5).fill("repaired"),
      ...Array<string>(5).fill("kept"),
    ]);
    for (const [status, n] of [
      ["failed", 5],
      ["stale", 5],
      ["repaired", 5],
      ["kept", 5],
    ] as const)
      assert.equal((await page.textContent(`.card[data-status=${status}] b`))?.trim(), String(n));
    const names = await page.locator("#nodes tbody tr td:nth-child(2) a").allTextContents();
    assert.ok(names.includes(HOSTILE_NAME), "the hostile name is shown as text");
    assert.equal(await page.evaluate<number>("document.querySelectorAll('main img, main script').length"), 0);
    assert.equal(await page.locator("svg g.day").count(), DAYS);
    const repairedDays = await page.evaluate<number>(
      "[...document.querySelectorAll('svg g.day')].filter(g => Number(g.dataset.repaired) > 0).length",
    );
    assert.ok(repairedDays > 0);
  });

  test("filters on the fleet page", async (t) => {
    if (reason || !browser) return t.skip(reason);
    await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
    const page = await browser.context.newPage();
    await page.goto(`${base}/ui/`);
    await page.selectOption("select[name=status]", "repaired");
    await page.click("form.f button[type=submit]");
    await page.waitForURL(/status=repaired/);
    const statuses = await page.locator("#nodes tbody tr td:first-child").allTextContents();
    assert.deepEqual(statuses, Array<string>(5).fill("repaired"));
    await page.goto(`${base}/ui/?q=${encodeURIComponent(nodeName(4))}`);
    assert.deepEqual(await page.locator("#nodes tbody tr td:nth-child(2) a").allTextContents(), [
      nodeName(4),
    ]);
    await page.goto(`${base}/ui/?limit=7`);
    assert.equal(await page.locator("#nodes tbody tr").count(), 7);
    assert.match((await page.textContent("#shown")) ?? "", /1–7 of 20 nodes/);
    await page.click("#shown a");
    assert.match((await page.textContent("#shown")) ?? "", /8–14 of 20 nodes/);
  });

  test("a node's last run, failures first, its filters, history and a run", async (t) => {
    if (reason || !browser) return t.skip(reason);
    await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
    const page = await browser.context.newPage();
    page.on("dialog", (d) => void d.dismiss());
    await page.goto(`${base}/ui/nodes/${encodeURIComponent(ids.failed[0] ?? "")}`);
    await page.screenshot({ path: join(shots, "node.png"), fullPage: true });
    assert.notEqual(await page.title(), "pwned");
    const outcomes = await page.locator("#promises tbody tr td:first-child").allTextContents();
    assert.equal(outcomes.length, 10);
    assert.deepEqual(outcomes.slice(0, 4), ["failed", "failed", "repaired", "repaired"]);
    assert.ok(outcomes.slice(4).every((o) => o === "kept"));
    const messages = await page.locator("#promises tbody tr td:last-child").allTextContents();
    assert.ok(messages.includes(HOSTILE_MESSAGE), "the hostile message is shown as text");
    assert.equal(await page.evaluate<number>("document.querySelectorAll('main script, main b').length"), 0);
    assert.equal(await page.locator("#runs tbody tr").count(), DAYS);
    assert.equal(await page.locator("svg g.day").count(), DAYS);
    await page.selectOption("select[name=outcome]", "repaired");
    await page.click("form.f button[type=submit]");
    await page.waitForURL(/outcome=repaired/);
    assert.deepEqual(await page.locator("#promises tbody tr td:first-child").allTextContents(), [
      "repaired",
      "repaired",
    ]);
    await page.selectOption("select[name=outcome]", "");
    await page.selectOption("select[name=type]", "files");
    await page.click("form.f button[type=submit]");
    await page.waitForURL(/type=files/);
    const types = await page.locator("#promises tbody tr td:nth-child(2)").allTextContents();
    assert.ok(types.length > 0 && types.every((ty) => ty === "files"));
    await page.click("#runs tbody tr:last-child a");
    await page.waitForURL(/\/ui\/runs\//);
    await page.screenshot({ path: join(shots, "run.png"), fullPage: true });
    assert.match(await page.title(), /^Run /);
    assert.equal(await page.locator("#promises tbody tr").count(), 10);
  });

  test("signing out ends the session", async (t) => {
    if (reason || !browser) return t.skip(reason);
    await browser.context.addCookies([{ name: "tend_token", value: token, url: base }]);
    const page = await browser.context.newPage();
    await page.goto(`${base}/ui/`);
    await page.click("header button[type=submit]");
    await page.waitForURL(/\/login$/);
    await page.goto(`${base}/ui/`);
    assert.match(page.url(), /\/login$/);
  });
});
