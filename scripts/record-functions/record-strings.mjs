#!/usr/bin/env node
/**
 * Records what cf-agent 3.21 returns for the string and regex function cases
 * of `strings-cases.mjs` and writes them to
 * test/fixtures/functions/strings.json (the table tend's tests compare with).
 *
 *   node scripts/record-functions/record-strings.mjs [--out FILE] [--cf-agent PATH] [--only REGEX] [--print]
 *
 * `--only` records the cases whose call matches REGEX and keeps the other
 * recorded results of the existing fixture; `--print` shows results instead
 * of writing them.
 * Each case becomes one vars promise `case_N` in a generated policy, run with
 * `cf-agent -Kf` in a private work directory under /tmp; a report prints its
 * value between markers. A case whose variable stays undefined (the call
 * failed) is recorded as `{ "fails": true }`. A run that aborts (3.21 calls
 * FatalError for some bad arguments) is retried case by case, and a case that
 * aborts on its own is recorded as failing with `"aborts": true`.
 *
 * Plain JavaScript so it runs without a build; it writes nothing outside the
 * repository except temporary directories it removes.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CASES, CLASSES, PRELUDE } from "./strings-cases.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const options = parseArgs(process.argv.slice(2));
const CHUNK = 60;

function parseArgs(argv) {
  const out = {
    out: resolve(here, "../../test/fixtures/functions/strings.json"),
    agent: "/usr/bin/cf-agent",
    only: undefined,
    print: false,
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out.out = resolve(argv[++i]);
    else if (argv[i] === "--cf-agent") out.agent = argv[++i];
    else if (argv[i] === "--only") out.only = new RegExp(argv[++i]);
    else if (argv[i] === "--print") out.print = true;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  return out;
}

/** A work directory with host keys and cf-promises, as cf-agent wants. */
function makeWorkdir() {
  const dir = mkdtempSync(join(tmpdir(), "tend-record-"));
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: dir };
  spawnSync(join(dirname(options.agent), "cf-key"), [], { env, stdio: "ignore" });
  try {
    symlinkSync(join(dirname(options.agent), "cf-promises"), join(dir, "bin", "cf-promises"));
  } catch {
    // cf-key normally creates bin/; without it cf-agent falls back to failsafe and we notice.
  }
  return { dir, env };
}

function declaration(kind) {
  return kind === "class" ? "string" : kind;
}

/** The policy text for a set of cases (indices into CASES). */
function policyFor(indices) {
  const lines = ['body common control { bundlesequence => { "main" }; }', "bundle agent main {", "classes:"];
  for (const name of CLASSES) lines.push(`  "${name}" expression => "any";`);
  lines.push("vars:");
  for (const { name, type, value } of PRELUDE) lines.push(`  "${name}" ${type} => ${value};`);
  for (const i of indices) {
    const c = CASES[i];
    lines.push(`  "case_${i}" ${declaration(c.kind)} => ${c.call};`);
    if (c.kind === "slist" || c.kind === "data") lines.push(`  "json_${i}" string => storejson(case_${i});`);
  }
  lines.push("reports:");
  for (const i of indices) {
    const c = CASES[i];
    const shown = c.kind === "slist" || c.kind === "data" ? `json_${i}` : `case_${i}`;
    lines.push(`  "<<<${i}>>>$(${shown})<<<end>>>" if => isvariable("${shown}");`);
    lines.push(`  "<<<${i}>>>FAIL<<<end>>>" unless => isvariable("${shown}");`);
  }
  lines.push('  "<<<done>>>";', "}");
  return `${lines.join("\n")}\n`;
}

/** Runs cf-agent on the cases; undefined when the run aborted. */
function runCases(indices) {
  const { dir, env } = makeWorkdir();
  try {
    const file = join(dir, "cases.cf");
    writeFileSync(file, policyFor(indices), { mode: 0o600 });
    const run = spawnSync(options.agent, ["-Kf", file, "-w", dir], { env, maxBuffer: 1 << 28 });
    const stdout = decodeBytes(run.stdout);
    if (!stdout.includes("<<<done>>>")) return undefined;
    const found = new Map();
    for (const m of stdout.matchAll(/<<<(\d+)>>>([\s\S]*?)<<<end>>>/g)) found.set(Number(m[1]), m[2]);
    return found;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A case's outcome from the text its report printed. */
function resultOf(c, raw) {
  if (raw === undefined || raw === "FAIL") return { fails: true };
  if (c.kind === "slist" || c.kind === "data") return { value: JSON.parse(raw) };
  return { value: raw };
}

/**
 * UTF-8 decoding that keeps invalid bytes as U+DC80..U+DCFF (as tend's
 * `decodeBytes` does), so byte-level results such as a reversed "é" survive.
 */
function decodeBytes(buf) {
  let out = "";
  let i = 0;
  while (i < buf.length) {
    const b = buf[i];
    const need =
      b < 0x80 ? 0 : b >= 0xc2 && b < 0xe0 ? 1 : b >= 0xe0 && b < 0xf0 ? 2 : b >= 0xf0 && b < 0xf5 ? 3 : -1;
    if (need === 0) {
      out += String.fromCharCode(b);
      i++;
      continue;
    }
    const slice = need > 0 ? buf.subarray(i, i + need + 1) : undefined;
    const text = slice && slice.length === need + 1 ? slice.toString("utf8") : "\ufffd";
    if (!text.includes("\ufffd") && Buffer.from(text, "utf8").equals(slice)) {
      out += text;
      i += need + 1;
    } else {
      out += String.fromCharCode(0xdc00 + b);
      i++;
    }
  }
  return out;
}

function main() {
  const selected = CASES.map((_, i) => i).filter((i) => !options.only || options.only.test(CASES[i].call));
  const results = new Map();
  for (let start = 0; start < selected.length; start += CHUNK) {
    const chunk = selected.slice(start, start + CHUNK);
    const found = runCases(chunk);
    if (found) {
      for (const i of chunk) results.set(i, resultOf(CASES[i], found.get(i)));
      continue;
    }
    for (const i of chunk) {
      const single = runCases([i]);
      results.set(i, single ? resultOf(CASES[i], single.get(i)) : { fails: true, aborts: true });
    }
  }
  const previous =
    options.only && existsSync(options.out) ? JSON.parse(readFileSync(options.out, "utf8")).cases : [];
  const byCall = new Map(previous.map((c) => [c.call, c]));
  const cases = CASES.map((c, i) =>
    results.has(i) ? { ...c, ...results.get(i) } : byCall.get(c.call),
  ).filter((c) => c !== undefined);
  if (options.print) {
    for (const i of selected) {
      const c = { ...CASES[i], ...results.get(i) };
      console.log("%s  =>  %s", c.call, c.aborts ? "ABORT" : c.fails ? "FAIL" : JSON.stringify(c.value));
    }
    return;
  }
  const fixture = { recordedWith: "cf-agent 3.21.0", prelude: PRELUDE, classes: CLASSES, cases };
  writeFileSync(options.out, `${JSON.stringify(fixture, null, 2)}\n`);
  console.error(`wrote ${cases.length} cases to ${options.out}`);
}

main();
