/**
 * Benchmarks built-in function calls, `tend agent` against `cf-agent` in one run:
 *
 *   node dist/bench/functions.js [--iterations N] [--calls 10000] [--check] [--json]
 *       [--keep DIR]
 *
 * The policy calls the 40 functions the Masterfiles Policy Framework calls
 * most (bench/masterfiles-functions.json, with how they were counted),
 * `--calls` calls in all, shared among the 40 in proportion to their call
 * sites there. The calls look like the framework's: paths of files in a
 * temporary directory passed in as a variable, lists and data containers of
 * a common bundle, class expressions, nested variable references. The
 * commands of execresult() and returnszero() are a few harmless ones
 * repeated, as 3.21 keeps their results for the run by arguments. Nothing is
 * written outside the temporary directory; nothing uses the network.
 *
 * Each call is a promise of its own (vars, or classes for the functions
 * that return a class), spread over bundles of 250 promises; a call is
 * counted once per promise, though both agents evaluate promises again in
 * later passes.
 *
 * `--check` runs each agent once with a reports bundle that prints every
 * result and compares the two outputs, to show the work measured is the
 * same. Each agent runs with `-K` in its own temporary work directory
 * (cf-agent with a `bin/cf-promises` link and keys there); the two alternate
 * so that a busy moment of the machine hits both; medians of wall time and of
 * CPU time (user + system, from /proc: steadier on a busy machine).
 * Skipped, with the reason, when cf-agent is not installed.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { benchAgent, CF_AGENT, median, medianCpu, type TimedRun, timeRun } from "./measure.js";

const countsFile = fileURLToPath(new URL("../../bench/masterfiles-functions.json", import.meta.url));

/** Files made in the temporary directory: f0 … f49, lines.txt, sub/s0 … s4. */
const FILES = 50;
const PER_BUNDLE = 250;

interface FunctionCount {
  readonly name: string;
  readonly callSites: number;
}

/** One generated promise: its section, its text, and how its result is reported. */
interface Call {
  readonly section: "vars" | "classes" | "files";
  /** The promise without its handle: `"NAME" type => fn(...)`. */
  readonly promise: (name: string) => string;
  readonly result: "string" | "slist" | "data" | "class" | "none";
}

const str = (body: string): Call => ({
  section: "vars",
  promise: (n) => `"${n}" string => ${body};`,
  result: "string",
});
const slist = (body: string): Call => ({
  section: "vars",
  promise: (n) => `"${n}" slist => ${body};`,
  result: "slist",
});
const data = (body: string): Call => ({
  section: "vars",
  promise: (n) => `"${n}" data => ${body};`,
  result: "data",
});
const cls = (body: string): Call => ({
  section: "classes",
  promise: (n) => `"${n}" expression => ${body};`,
  result: "class",
});

/** `$(d)` is the temporary directory; `i` varies each call of a function. */
const TEMPLATES: Readonly<Record<string, (i: number) => Call>> = {
  isvariable: (i) => cls(`isvariable("bench_data.s${i % 30}")`),
  not: (i) => cls(`not("bench_never_${i % 7}|!linux")`),
  strcmp: (i) => cls(`strcmp("$(bench_data.s${i % 20})", "value ${i % 40}")`),
  fileexists: (i) => cls(`fileexists("$(bench_data.d)/f${i % (FILES + 10)}")`),
  and: (i) => cls(`and("any", "cfengine_3", "!bench_never_${i % 5}")`),
  ifelse: (i) => str(`ifelse("bench_never_${i % 3}", "yes", "linux", "linux ${i}", "fallback")`),
  canonify: (i) => str(`canonify("$(bench_data.d)/f${i}.conf-x")`),
  getindices: (i) => slist(`getindices("bench_data.${i % 2 ? "settings" : "array"}")`),
  regcmp: (i) => cls(`regcmp("^value [0-9]*${i % 10}$", "$(bench_data.s${i % 20})")`),
  format: (i) => str(`format("%s-%d-%5.2f-%S", "host${i}", "${i}", "3.14159", "bench_data.list")`),
  execresult: (i) => str(`execresult("/bin/echo exec ${i % 5}", "noshell")`),
  isgreaterthan: (i) => cls(`isgreaterthan("${i}", "$(bench_data.limit)")`),
  returnszero: (i) => cls(`returnszero("/bin/test -f $(bench_data.d)/f${i % 5}", "noshell")`),
  getvalues: (i) => slist(`getvalues("bench_data.${i % 2 ? "settings" : "array"}")`),
  parsejson: (i) => data(`parsejson('{ "key${i}": [ 1, 2, "three" ], "nested": { "a": "b", "n": ${i} } }')`),
  isdir: (i) => cls(`isdir("$(bench_data.d)/${i % 2 ? "sub" : `f${i % FILES}`}")`),
  regex_replace: (i) => str(`regex_replace("host-${i}.example.com", "([a-z]+)-([0-9]+)", "\\2_\\1", "g")`),
  concat: (i) => str(`concat("$(bench_data.s${i % 20})", "-", "${i}", "$(bench_data.d)")`),
  escape: (i) => str(`escape("$(bench_data.d)/f${i}.cf+(x)")`),
  filestat: (i) =>
    str(`filestat("$(bench_data.d)/f${i % FILES}", "${["size", "type", "permoct", "nlink"][i % 4]}")`),
  length: (i) => str(`length("bench_data.${["list", "settings", "biglist"][i % 3]}")`),
  mergedata: (i) => data(`mergedata("bench_data.settings", '{ "extra${i}": [ "x", "y" ] }')`),
  translatepath: (i) => str(`translatepath("$(bench_data.d)/sub/f${i}")`),
  grep: (i) => slist(`grep("item[0-9]*${i % 10}", "bench_data.biglist")`),
  classesmatching: (i) => slist(`classesmatching("bench_tagged_${i % 10}.*")`),
  reglist: (i) => cls(`reglist("@(bench_data.biglist)", "item${i % 100}")`),
  join: (i) => str(`join("${[",", " ", ":"][i % 3]}", "bench_data.biglist")`),
  readfile: (i) => str(`readfile("$(bench_data.d)/f${i % FILES}", "4096")`),
  // irange() returns a range for a body's attribute, as masterfiles uses it:
  // a file_select body selecting sub/'s files by size, whose modes are kept.
  irange: (i) => ({
    section: "files",
    promise: () =>
      `"$(bench_data.d)/sub" depth_search => bench_recurse, file_select => bench_size("${i % 50}"), perms => bench_mode;`,
    result: "none",
  }),
  sort: (i) => slist(`sort("bench_data.biglist", "${["lex", "int", "real", "IP"][i % 4]}")`),
  string_replace: (i) => str(`string_replace("a path/to/${i}/with/path", "path", "dir")`),
  string_split: (i) => slist(`string_split("a,b,c ${i},d,e", ",", "${(i % 4) + 2}")`),
  findfiles: (i) => slist(`findfiles("$(bench_data.d)/f${i % 5}*", "$(bench_data.d)/sub")`),
  getclassmetatags: (i) => slist(`getclassmetatags("bench_tagged_${i % 10}")`),
  maplist: (i) => slist(`maplist("prefix_${i}_$(this)", "bench_data.list")`),
  nth: (i) => str(`nth("bench_data.biglist", "${i % 100}")`),
  filter: (i) => slist(`filter("item${i % 10}.*", "bench_data.biglist", "true", "false", "20")`),
  regline: (i) => cls(`regline("line ${i % 30}[0-9]*", "$(bench_data.d)/lines.txt")`),
  string_mustache: (i) =>
    str(
      `string_mustache("Host {{host}} ${i}:{{#items}} {{.}}{{/items}} {{#settings}}{{k}}{{/settings}}", "bench_data.mustache")`,
    ),
  variablesmatching_as_data: (i) => data(`variablesmatching_as_data("default:bench_data\\.s${i % 10}.*")`),
};

/** The 40 functions with their call sites in masterfiles. */
export function loadCounts(): FunctionCount[] {
  const parsed = JSON.parse(readFileSync(countsFile, "utf8")) as { functions: FunctionCount[] };
  return parsed.functions;
}

/** Shares `total` calls in proportion to call sites (largest remainders get the rest). */
export function shareCalls(counts: readonly FunctionCount[], total: number): Map<string, number> {
  const sites = counts.reduce((n, c) => n + c.callSites, 0);
  const exact = counts.map((c) => ({ name: c.name, share: (total * c.callSites) / sites }));
  const shares = new Map(exact.map((e) => [e.name, Math.floor(e.share)]));
  let left = total - [...shares.values()].reduce((a, b) => a + b, 0);
  for (const e of [...exact].sort((a, b) => (b.share % 1) - (a.share % 1))) {
    if (left-- <= 0) break;
    shares.set(e.name, (shares.get(e.name) ?? 0) + 1);
  }
  return shares;
}

/** The common bundle every call reads: the directory, scalars, lists, data, tagged classes. */
function commonBundle(dir: string): string {
  const biglist = Array.from({ length: 100 }, (_, k) => `"item${k * 7}"`).join(", ");
  const lines = [
    "bundle common bench_data",
    "{",
    "  vars:",
    `      "d" string => "${dir}";`,
    '      "limit" string => "500";',
    '      "list" slist => { "alpha", "beta", "gamma", "delta", "epsilon" };',
    `      "biglist" slist => { ${biglist} };`,
    '      "settings" data => parsejson(\'{ "k1": "v1", "k2": [ "a", "b" ], "k3": { "x": 1 }, "k4": true }\');',
    '      "mustache" data => parsejson(\'{ "host": "h1", "items": [ "a", "b", "c" ], "settings": [ { "k": "1" }, { "k": "2" } ] }\');',
  ];
  for (let k = 0; k < 30; k++) lines.push(`      "s${k}" string => "value ${k}";`);
  for (let k = 0; k < 10; k++) lines.push(`      "array[key${k}]" string => "element ${k}";`);
  lines.push("  classes:");
  for (let k = 0; k < 10; k++)
    lines.push(`      "bench_tagged_${k}" expression => "any", meta => { "bench", "index=${k}" };`);
  lines.push("}");
  return lines.join("\n");
}

export interface GeneratedPolicy {
  readonly text: string;
  readonly calls: number;
  readonly perFunction: ReadonlyMap<string, number>;
}

/**
 * The benchmark policy for files in `dir`. With `report`, a last bundle
 * prints every result (for --check).
 */
export function functionsPolicy(dir: string, total: number, report: boolean): GeneratedPolicy {
  const perFunction = shareCalls(loadCounts(), total);
  const promises: { name: string; call: Call }[] = [];
  for (const [fn, count] of perFunction) {
    const template = TEMPLATES[fn];
    if (!template) throw new Error(`no call template for ${fn}`);
    for (let i = 0; i < count; i++) promises.push({ name: `${fn}_${i}`, call: template(i) });
  }
  // Interleave the functions as a real policy does, in a fixed order.
  promises.sort((a, b) => hash(a.name) - hash(b.name) || (a.name < b.name ? -1 : 1));
  const bundles: string[] = [];
  const names: string[] = [];
  for (let b = 0; b * PER_BUNDLE < promises.length; b++) {
    const chunk = promises.slice(b * PER_BUNDLE, (b + 1) * PER_BUNDLE);
    const name = `calls_${b}`;
    names.push(name);
    const out = [`bundle agent ${name}`, "{"];
    for (const section of ["vars", "classes", "files"] as const) {
      const mine = chunk.filter((p) => p.call.section === section);
      if (mine.length === 0) continue;
      out.push(`  ${section}:`);
      for (const p of mine) out.push(`      ${p.call.promise(p.name)}`);
    }
    if (report) out.push(...reportLines(chunk));
    out.push("}");
    bundles.push(out.join("\n"));
  }
  const sequence = names.map((n) => `"${n}"`).join(", ");
  const text = [
    `body common control { bundlesequence => { ${sequence} }; }`,
    "body depth_search bench_recurse { depth => inf; }",
    'body file_select bench_size(n) { search_size => irange("$(n)", "100000"); file_result => "size"; }',
    'body perms bench_mode { mode => "0644"; rxdirs => "false"; }',
    commonBundle(dir),
    ...bundles,
    "",
  ].join("\n");
  return { text, calls: promises.length, perFunction };
}

function reportLines(chunk: readonly { name: string; call: Call }[]): string[] {
  const out = ["  reports:"];
  for (const { name, call } of chunk) {
    if (call.result === "none") continue;
    if (call.result === "class") out.push(`      "${name} $(with)" with => ifelse("${name}", "yes", "no");`);
    else if (call.result === "string") out.push(`      "${name} = $(${name})";`);
    else out.push(`      "${name} = $(with)" with => storejson("${name}");`);
  }
  return out;
}

/** A small fixed hash (FNV-1a) to interleave the promises deterministically. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), 0x01000193) >>> 0;
  return h;
}

/** The files the calls read: f0 … f49 of a few lines, lines.txt, sub/s0 … s4 of mode 0644. */
export function makeFiles(dir: string): void {
  mkdirSync(join(dir, "sub"), { recursive: true });
  for (let k = 0; k < 5; k++) {
    writeFileSync(join(dir, "sub", `s${k}`), "s".repeat(k * 10));
    chmodSync(join(dir, "sub", `s${k}`), 0o644);
  }
  for (let k = 0; k < FILES; k++)
    writeFileSync(join(dir, `f${k}`), `file ${k}\n${"x".repeat(k * 20)}\nsetting_${k} = ${k}\n`);
  writeFileSync(
    join(dir, "lines.txt"),
    Array.from({ length: 200 }, (_, k) => `line ${k} text`).join("\n") + "\n",
  );
}

/** The report lines and messages, without time stamps and `R: ` prefixes, sorted. */
function reported(stdout: string): string[] {
  return stdout
    .split("\n")
    .map((line) => line.replace(/^.*?R: /, "").trim())
    .filter((line) => line !== "")
    .sort();
}

export interface FunctionsComparison {
  readonly calls: number;
  readonly tendMs: number;
  readonly cfAgentMs: number;
  readonly ratio: number;
  readonly tendCpuMs: number | null;
  readonly cfAgentCpuMs: number | null;
  readonly cpuRatio: number | null;
  /** With --check: report lines that differ between the agents (at most 20), or none. */
  readonly differences?: readonly string[];
}

export function compareFunctions(
  total: number,
  iterations: number,
  check: boolean,
  keep?: string,
): FunctionsComparison {
  const root = keep ?? mkdtempSync(join(tmpdir(), "tend-bench-functions-"));
  mkdirSync(root, { recursive: true });
  const dir = join(root, "files");
  makeFiles(dir);
  const policy = functionsPolicy(dir, total, false);
  writeFileSync(join(root, "functions.cf"), policy.text);
  const agents = (["tend", "cf-agent"] as const).map((name) =>
    benchAgent("functions", name, "./functions.cf"),
  );
  const runs = new Map<string, TimedRun[]>(agents.map((a) => [a.name, []]));
  let differences: string[] | undefined;
  try {
    if (check) {
      writeFileSync(join(root, "functions-report.cf"), functionsPolicy(dir, total, true).text);
      const outputs = agents.map((a) =>
        reported(timeRun({ ...a, args: [...a.args.slice(0, -1), "./functions-report.cf"] }, root).stdout),
      );
      differences = diff(outputs[0] as string[], outputs[1] as string[]);
    }
    for (const a of agents) timeRun(a, root); // warm the file cache
    for (let k = 0; k < iterations; k++) for (const a of agents) runs.get(a.name)?.push(timeRun(a, root));
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
    for (const a of agents) rmSync(a.workdir, { recursive: true, force: true });
  }
  const tend = runs.get("tend") ?? [];
  const cf = runs.get("cf-agent") ?? [];
  const tendMs = median(tend.map((r) => r.wall));
  const cfAgentMs = median(cf.map((r) => r.wall));
  const tendCpuMs = medianCpu(tend);
  const cfAgentCpuMs = medianCpu(cf);
  return {
    calls: policy.calls,
    tendMs,
    cfAgentMs,
    ratio: tendMs / cfAgentMs,
    tendCpuMs,
    cfAgentCpuMs,
    cpuRatio: tendCpuMs !== null && cfAgentCpuMs ? tendCpuMs / cfAgentCpuMs : null,
    ...(differences ? { differences } : {}),
  };
}

/** Lines only one side printed, marked `tend:` or `cf-agent:`; at most 20. */
function diff(tend: readonly string[], cf: readonly string[]): string[] {
  const count = (lines: readonly string[]) => {
    const m = new Map<string, number>();
    for (const l of lines) m.set(l, (m.get(l) ?? 0) + 1);
    return m;
  };
  const t = count(tend);
  const c = count(cf);
  const out: string[] = [];
  for (const [line, n] of t) if ((c.get(line) ?? 0) < n) out.push(`tend:     ${line}`);
  for (const [line, n] of c) if ((t.get(line) ?? 0) < n) out.push(`cf-agent: ${line}`);
  return out.sort((a, b) => (a.slice(10) < b.slice(10) ? -1 : 1)).slice(0, 20);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      iterations: { type: "string" },
      calls: { type: "string" },
      check: { type: "boolean" },
      json: { type: "boolean" },
      keep: { type: "string" },
    },
  });
  const iterations = Number(values.iterations ?? 5);
  const calls = Number(values.calls ?? 10000);
  if (!existsSync(CF_AGENT)) {
    process.stdout.write(
      "functions benchmark skipped: cf-agent is not installed (apt-get install cfengine3)\n",
    );
    return;
  }
  const r = compareFunctions(calls, iterations, values.check ?? false, values.keep);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    return;
  }
  const cpu =
    r.cpuRatio === null
      ? ""
      : `; CPU ${r.tendCpuMs?.toFixed(0)} / ${r.cfAgentCpuMs?.toFixed(0)} ms, ratio ${r.cpuRatio.toFixed(2)}×`;
  process.stdout.write(
    `functions, ${r.calls} calls of the 40 most used in masterfiles: tend ${r.tendMs.toFixed(0)} ms, cf-agent ${r.cfAgentMs.toFixed(0)} ms, ratio ${r.ratio.toFixed(2)}×${cpu} (goal ≤ 1.0×)\n`,
  );
  if (r.differences) {
    process.stdout.write(
      r.differences.length === 0
        ? "check: both agents reported the same results\n"
        : `check: the results differ (first ${r.differences.length}):\n${r.differences.map((d) => `  ${d}`).join("\n")}\n`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
