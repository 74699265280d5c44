/**
 * Debian's Chromium, driven headless through playwright-core (never a
 * downloaded browser), for the web page's tests and benchmark. The
 * package is loaded by a computed name, so the build does not need it;
 * `browserUnavailable()` says why the browser cannot run here.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = "/usr/bin/chromium";

/** The little of playwright-core's API these tests use. */
export interface Page {
  goto(url: string, options?: { waitUntil?: "load" }): Promise<{ status(): number } | null>;
  title(): Promise<string>;
  url(): string;
  fill(selector: string, value: string): Promise<void>;
  click(selector: string): Promise<void>;
  selectOption(selector: string, value: string): Promise<unknown>;
  waitForURL(url: string | RegExp): Promise<void>;
  textContent(selector: string): Promise<string | null>;
  locator(selector: string): { count(): Promise<number>; allTextContents(): Promise<string[]> };
  evaluate<T>(fn: string): Promise<T>;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  on(event: "dialog", listener: (dialog: { dismiss(): Promise<void> }) => void): void;
}

export interface BrowserContext {
  newPage(): Promise<Page>;
  addCookies(cookies: { name: string; value: string; url: string }[]): Promise<void>;
  close(): Promise<void>;
}

interface Chromium {
  launchPersistentContext(
    dir: string,
    options: { executablePath: string; headless: boolean; args: string[]; ignoreHTTPSErrors: boolean },
  ): Promise<BrowserContext>;
}

function loadPlaywright(): { chromium: Chromium } | undefined {
  try {
    const name = "playwright-core";
    return createRequire(import.meta.url)(name) as { chromium: Chromium };
  } catch {
    return undefined;
  }
}

/** Why the browser tests cannot run here, or undefined. */
export function browserUnavailable(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is absent (apt-get install chromium)`;
  if (!loadPlaywright()) return "playwright-core is not installed (npm install)";
  return undefined;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile in a temp dir, trusting any certificate (the hub's is self-signed). */
export async function launchBrowser(): Promise<Browser> {
  const playwright = loadPlaywright();
  if (!playwright) throw new Error("playwright-core is not installed");
  const profile = mkdtempSync(join(tmpdir(), "tend-chromium-"));
  const context = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    ignoreHTTPSErrors: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
