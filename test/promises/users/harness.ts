/**
 * Runs users scenarios (scenarios.ts) through an agent's command line in a
 * sandbox (sandbox.ts), twice, and takes what tend and cf-agent 3.21 must
 * agree on: the passwd, shadow, group and gshadow entries of the
 * scenario's users and groups afterwards, the home directories made, each
 * run's error/warning/info lines and the verbose lines of the users
 * promises, what the shadow tools printed, and the
 * reports (which show the outcome classes). The sandbox's path reads `T`
 * in messages; the shadow field of the last change is left out (a day
 * number), and a hash made from a plaintext password reads
 * `<crypt:PASSWORD>` when it verifies (its salt is random).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Sandbox } from "./sandbox.js";

export interface UsersScenario {
  readonly name: string;
  /** A shell script run in the sandbox before the first run (to make accounts and groups). */
  readonly setup?: string;
  /** The body of `bundle agent main`. */
  readonly main: string;
  /** More bundles and bodies. */
  readonly extra?: string;
  /** More agent options (`-n`). */
  readonly args?: readonly string[];
  /** The accounts whose entries are compared. */
  readonly users: readonly string[];
  /** More groups whose entries are compared (the users' own groups are always). */
  readonly groups?: readonly string[];
  /** Plaintext passwords the scenario sets. */
  readonly plaintext?: readonly string[];
}

export interface RunCapture {
  readonly log: string[];
  /** The verbose lines of users promises and their home bundles. */
  readonly verbose: string[];
  readonly tools: string[];
  readonly reports: string[];
}

export interface ScenarioOutcome {
  readonly runs: RunCapture[];
  readonly state: string[];
}

/** Bodies and bundles every scenario may use. */
const PRELUDE = `
body password pw(f, d) { format => "$(f)"; data => "$(d)"; }
body password only_format(f) { format => "$(f)"; }
body password only_data(d) { data => "$(d)"; }
body classes c(p) { promise_kept => { "$(p)_kept" }; promise_repaired => { "$(p)_repaired" }; repair_failed => { "$(p)_failed" }; }
body action warn_only { action_policy => "warn"; }
bundle agent make_home(u) {
files:
  "/home/$(u)/." create => "true";
  "/home/$(u)/.profile" create => "true", edit_line => profile_lines("$(u)");
reports:
  "home bundle ran for $(u)";
}
bundle edit_line profile_lines(u) { insert_lines: "# profile of $(u)"; }
`;

export function scenarioPolicy(scenario: UsersScenario): string {
  return `body common control { bundlesequence => { "main" }; }
bundle agent main {
${scenario.main}
vars:
  "outcome_classes" slist => sort(classesmatching("x[0-9]*_(kept|repaired|failed)"), "lex");
reports:
  "classes: $(outcome_classes)";
}
${scenario.extra ?? ""}
${PRELUDE}`;
}

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));
const REPO = fileURLToPath(new URL("../../../../", import.meta.url));

export type Agent = "tend" | "cf-agent";

/** The agent's command line in the sandbox (tend's checkout and node reachable there). */
function agentArgv(agent: Agent, box: Sandbox, args: readonly string[]): string[] {
  const policy = box.inside("policy.cf");
  if (agent === "cf-agent") return ["cf-agent", "-Kv", ...args, "-f", policy];
  const node = box.reachable(process.execPath, dirname(process.execPath));
  const tend = box.reachable(TEND, REPO);
  return [node, tend, "agent", "-Kv", ...args, "--workdir", box.inside("wd-tend"), "-f", policy];
}

const LEVEL_LINE = /^\s*(error|warning|notice|info|verbose): (.*)$/;

/** The verbose messages compared: what users promises (and their home bundles) say. */
const USERS_VERBOSE = /user '|User promise|^Method '/;

/**
 * One run's lines: log lines of the compared levels, tool output, reports.
 * cf-agent logs on stdout, the tools print on its stderr; tend logs on one
 * stream and passes tool output as notice lines.
 */
function capture(agent: Agent, stdout: string, stderr: string, box: Sandbox): RunCapture {
  const relative = (text: string) => box.relative(text);
  const result: RunCapture = { log: [], verbose: [], tools: [], reports: [] };
  const logLines = agent === "cf-agent" ? stdout : `${stdout}\n${stderr}`;
  for (const line of logLines.split("\n")) {
    const report = /^R: (.*)$/.exec(line);
    const entry = LEVEL_LINE.exec(line);
    if (report) result.reports.push(relative(report[1] as string));
    else if (entry?.[1] === "notice" && agent === "tend") result.tools.push(relative(entry[2] as string));
    else if (entry?.[1] === "verbose") {
      if (USERS_VERBOSE.test(entry[2] as string)) result.verbose.push(relative(entry[2] as string));
    } else if (entry && entry[1] !== "notice")
      result.log.push(`${entry[1]}: ${relative(entry[2] as string)}`);
  }
  if (agent === "cf-agent")
    for (const line of stderr.split("\n")) if (line.trim() !== "") result.tools.push(relative(line));
  return result;
}

/** Whether `hash` is a hash of `password` (libcrypt, through perl). */
function verifies(password: string, hash: string): boolean {
  const script = 'local $/; my ($h, $p) = split(/\\n/, <STDIN>, 2); print(crypt($p, $h) eq $h ? "1" : "0");';
  return (
    spawnSync("perl", ["-e", script], { input: `${hash}\n${password}`, encoding: "utf8" }).stdout === "1"
  );
}

function entriesOf(box: Sandbox, file: string, keep: (fields: string[]) => boolean): string[] {
  const text = readFileSync(join(box.dir, "etc", file), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "" && keep(line.split(":")))
    .map((line) => `${file}: ${line}`);
}

function shadowLine(fields: string[], plaintext: readonly string[]): string {
  const hash = fields[1] ?? "";
  const known = hash.startsWith("$") ? plaintext.find((p) => verifies(p, hash)) : undefined;
  const shown = known === undefined ? hash : `<crypt:${known}>`;
  return [fields[0], shown, "<day>", ...fields.slice(3)].join(":");
}

/** The entries of the scenario's users and groups, and the home directories made. */
export function stateOf(box: Sandbox, scenario: UsersScenario): string[] {
  const users = new Set(scenario.users);
  const groups = new Set([...scenario.users, ...(scenario.groups ?? [])]);
  const inGroup = (f: string[]) =>
    groups.has(f[0] as string) || (f[3] ?? "").split(",").some((m) => users.has(m));
  const state = [
    ...entriesOf(box, "passwd", (f) => users.has(f[0] as string)),
    ...entriesOf(box, "shadow", (f) => users.has(f[0] as string)).map(
      (line) => `shadow: ${shadowLine(line.slice("shadow: ".length).split(":"), scenario.plaintext ?? [])}`,
    ),
    ...entriesOf(box, "group", inGroup),
    ...entriesOf(box, "gshadow", inGroup),
  ];
  for (const home of readdirSync(join(box.dir, "home")).sort()) {
    const dir = join(box.dir, "home", home);
    const files = readdirSync(dir).sort();
    state.push(`home: ${home} ${(statSync(dir).mode & 0o7777).toString(8)} [${files.join(" ")}]`);
  }
  return state;
}

/** The scenario through one agent: a fresh sandbox, its setup, two runs, the state left. */
export async function runScenario(scenario: UsersScenario, agent: Agent): Promise<ScenarioOutcome> {
  const box = new Sandbox();
  try {
    if (scenario.setup) box.shell(scenario.setup);
    writeFileSync(join(box.dir, "policy.cf"), scenarioPolicy(scenario));
    const argv = agentArgv(agent, box, scenario.args ?? []);
    const runs: RunCapture[] = [];
    for (let i = 0; i < 2; i++) {
      const run = await box.runAsync(argv);
      runs.push(capture(agent, run.stdout, run.stderr, box));
    }
    return { runs, state: stateOf(box, scenario) };
  } finally {
    box.remove();
  }
}
