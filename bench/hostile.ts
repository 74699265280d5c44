/**
 * Hostile input, `tend agent` against `cf-agent` in one run:
 *
 *   node dist/bench/hostile.js [--timeout 10] [--only regex|reads] [--json]
 *
 * regex: each catastrophic pattern of test/hostile/regex-cases.ts through
 * regcmp() and regextract() on its subject, one policy per case.
 * reads: readfile (whole and 1000 bytes), readstringlist (10 lines, 100000
 * bytes), countlinesmatching, file_hash and regline on /dev/zero, a 2 GiB
 * sparse file and a 100 MB file of lines, one policy per function and file.
 *
 * For each: wall time and peak resident memory (from /usr/bin/time) of
 * both agents, and the ratio; a run past --timeout seconds is killed and
 * shown as such (cf-agent never returns from several of the reads).
 * Each agent runs with -K in a work directory of its own.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REGEX_CASES } from "../test/hostile/regex-cases.js";
import { benchWorkdir, CF_AGENT, TEND } from "./measure.js";

const TIME = "/usr/bin/time";

interface Measured {
  readonly seconds: number;
  readonly kb: number | null;
  readonly killed: boolean;
  /** The report lines, to show both agents did the work. */
  readonly reports: string;
}

function measure(command: string, args: readonly string[], workdir: string, timeout: number): Measured {
  const started = performance.now();
  const result = spawnSync(TIME, ["-f", "%M", "timeout", "-s", "KILL", String(timeout), command, ...args], {
    env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir, NO_COLOR: "1" },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const seconds = (performance.now() - started) / 1000;
  const last = result.stderr.trim().split("\n").at(-1) ?? "";
  const kb = /^\d+$/.test(last) ? Number(last) : null;
  const reports = result.stdout
    .split("\n")
    .filter((line) => line.startsWith("R: "))
    .join(" ");
  return { seconds, kb, killed: seconds >= timeout - 0.05 && result.status !== 0, reports };
}

function show(m: Measured): string {
  const time = m.killed ? `>${m.seconds.toFixed(0)} s (killed)` : `${m.seconds.toFixed(2)} s`;
  const memory = m.kb === null ? "" : ` ${(m.kb / 1024).toFixed(0)} MB`;
  const answer = m.killed ? "" : ` ${m.reports.replace(/^R: /, "").slice(0, 12) || "(none)"}`;
  return `${time}${memory}${answer}`.padEnd(40);
}

interface Row {
  readonly name: string;
  readonly tend: Measured;
  readonly cfAgent: Measured | null;
}

function compare(name: string, policy: string, timeout: number, withCf: boolean): Row {
  const label = name.replace(/\W+/g, "-");
  const tendDir = benchWorkdir(`hostile-${label}-tend`, false);
  const tend = measure(TEND, ["agent", "-Kf", policy], tendDir, timeout);
  rmSync(tendDir, { recursive: true, force: true });
  let cfAgent: Measured | null = null;
  if (withCf) {
    const cfDir = benchWorkdir(`hostile-${label}-cf`, true);
    cfAgent = measure(CF_AGENT, ["-Kf", policy], cfDir, timeout);
    rmSync(cfDir, { recursive: true, force: true });
  }
  return { name, tend, cfAgent };
}

function policyFile(dir: string, name: string, body: string): string {
  const path = join(dir, `${name}.cf`);
  writeFileSync(path, `bundle agent main\n{\n${body}\n}\n`, { mode: 0o600 });
  return path;
}

function regexRows(dir: string, timeout: number, withCf: boolean): Row[] {
  return REGEX_CASES.map((c, n) => {
    const body = `  vars:
    "p" string => '${c.pattern}';
    "s" string => '${c.subject}';
  classes:
    "full" expression => regcmp("$(p)", "$(s)");
    "some" expression => regextract("$(p)", "$(s)", "m");
  reports:
    "done";`;
    const label = `regex ${String(n).padStart(2)} ${c.pattern.slice(0, 28)}`;
    return compare(label, policyFile(dir, `regex-${n}`, body), timeout, withCf);
  });
}

function readRows(dir: string, timeout: number, withCf: boolean): Row[] {
  const sparse = join(dir, "sparse");
  const fd = openSync(sparse, "w");
  writeSync(fd, Buffer.from([0]), 0, 1, 2 * 1024 * 1024 * 1024 - 1);
  closeSync(fd);
  const large = join(dir, "large");
  writeFileSync(large, `${"x".repeat(99)}\n`.repeat(1_000_000));
  const calls: Record<string, (f: string) => string> = {
    readfile: (f) => `"v" int => string_length(readfile("${f}"));`,
    "readfile 1000": (f) => `"v" int => string_length(readfile("${f}", 1000));`,
    readstringlist: (f) => `"v" int => length(readstringlist("${f}", "#", "\\n", 10, 100000));`,
    countlinesmatching: (f) => `"v" int => countlinesmatching("x.*", "${f}");`,
    file_hash: (f) => `"v" string => file_hash("${f}", "md5");`,
    regline: (f) => `"v" string => ifelse(regline("x+", "${f}"), "yes", "no");`,
  };
  const rows: Row[] = [];
  for (const [fn, call] of Object.entries(calls)) {
    for (const [label, file] of [
      ["/dev/zero", "/dev/zero"],
      ["2 GiB sparse", sparse],
      ["100 MB", large],
    ]) {
      const name = `${fn} ${label}`;
      const policy = policyFile(
        dir,
        name.replace(/\W+/g, "-"),
        `  vars:\n    ${call(file)}\n  reports:\n    "$(v)";`,
      );
      rows.push(compare(name, policy, timeout, withCf));
    }
  }
  return rows;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      timeout: { type: "string", default: "10" },
      only: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (!existsSync(TIME)) {
    process.stdout.write(`hostile: skipped (${TIME} is not installed; it measures peak memory)\n`);
    return;
  }
  const timeout = Number(values.timeout);
  const withCf = existsSync(CF_AGENT);
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-hostile-"));
  const rows: Row[] = [];
  try {
    if (values.only !== "reads") rows.push(...regexRows(dir, timeout, withCf));
    if (values.only !== "regex") rows.push(...readRows(dir, timeout, withCf));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  process.stdout.write(`hostile input (wall time, peak memory; killed past ${timeout} s)\n`);
  process.stdout.write(`${"case".padEnd(44)}${"tend".padEnd(40)}${"cf-agent".padEnd(40)}ratio\n`);
  for (const row of rows) {
    const cf = row.cfAgent;
    const ratio =
      cf === null
        ? ""
        : `${(row.tend.seconds / cf.seconds).toFixed(2)}×${cf.killed ? " (cf-agent killed)" : ""}`;
    process.stdout.write(
      `${row.name.padEnd(44)}${show(row.tend)}${cf ? show(cf) : "(no cf-agent)".padEnd(40)}${ratio}\n`,
    );
  }
  const worst = Math.max(...rows.map((r) => r.tend.seconds));
  process.stdout.write(`slowest tend case: ${worst.toFixed(2)} s\n`);
}

main();
