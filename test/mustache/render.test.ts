/**
 * The Mustache renderer against cf-agent 3.21: every case of
 * test/fixtures/mustache/cases.json (the areas of the Mustache spec —
 * interpolation, sections, inverted sections, comments, delimiters,
 * partials — and CFEngine's extensions) must render to the file cf-agent
 * wrote, or fail where it failed, with the same warnings.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { JsonValue } from "../../src/eval/values.js";
import { renderMustache } from "../../src/eval/mustache/index.js";

interface Case {
  readonly name: string;
  readonly template: string;
  readonly data: JsonValue;
}

interface Recorded {
  readonly name: string;
  readonly output: string | null;
  readonly log: readonly string[];
}

const fixtures = new URL("../../../test/fixtures/mustache/", import.meta.url);
const cases: Case[] = JSON.parse(readFileSync(new URL("cases.json", fixtures), "utf8"));
const recorded = new Map<string, Recorded>(
  (JSON.parse(readFileSync(new URL("cf-agent.json", fixtures), "utf8")) as Recorded[]).map((r) => [
    r.name,
    r,
  ]),
);

/** The renderer's own lines among cf-agent's (not the files promise's). */
function rendererLines(log: readonly string[]): string[] {
  return log.filter((l) => !/Error rendering mustache|Errors encountered|readjson|No template data/.test(l));
}

for (const c of cases) {
  const expected = recorded.get(c.name);
  const container = c.data !== null && typeof c.data === "object";
  test(`mustache: ${c.name}`, { skip: !expected || !container ? "no container data" : false }, () => {
    const log: string[] = [];
    const format = (level: string, message: string) =>
      log.push(`${level === "error" ? "   error" : " warning"}: ${message}`);
    const output = renderMustache(c.template, c.data, format);
    assert.equal(output ?? null, expected?.output);
    assert.deepEqual(log, rendererLines(expected?.log ?? []));
  });
}
