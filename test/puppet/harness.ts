/**
 * The Puppet differential harness. A scenario is a directory of
 * test/fixtures/puppet/: `manifest.pp` (paths under `@ROOT@`, a scratch
 * root), `scenario.json` (`{"runs": [{}, {"noop": true}]}`, optional),
 * an optional `setup/` tree copied into the root and `setup.sh` run there
 * (for modes, links, owners git cannot keep), and optional `modules/`.
 * Recording (scripts/record-puppet.ts, needs Puppet 7.23) stores Puppet's
 * catalog (`catalog.json`) and its results (`expected.json`); the test
 * (test/puppet/differential.test.ts) applies that catalog with `tend
 * puppet apply --catalog` run after run and compares. Both sides are
 * read the same way: from the `last_run_report.yaml` each writes, and the
 * files left under the root.
 */
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";

/** test/fixtures/puppet/ in the source tree (from dist/test/puppet/ or test/puppet/). */
export const scenariosDir = fileURLToPath(new URL("../../../test/fixtures/puppet/", import.meta.url));

/** The node every scenario is compiled and applied for. */
export const NODE = "testnode";

/** The arguments of `puppet catalog compile` for NODE as JSON, with fixed facts, after `puppet`. */
export function compileArgs(confdir: string): string[] {
  return [
    "catalog",
    "compile",
    NODE,
    "--confdir",
    confdir,
    "--facts_terminus",
    "json",
    "--render-as",
    "json",
    "--log_level",
    "err",
  ];
}

/** A compiled catalog without the keys that change at every compile (version, uuid, code id). */
export function stableCatalog(json: string): Record<string, unknown> {
  const catalog = JSON.parse(json) as Record<string, unknown>;
  for (const key of ["version", "catalog_uuid", "code_id"]) delete catalog[key];
  return catalog;
}

export interface ScenarioRun {
  /** `--noop` for this run. */
  readonly noop?: boolean;
  /** `--tags`: only resources with one of these tags (comma-separated) are applied. */
  readonly tags?: string;
}

export interface ScenarioSpec {
  readonly description?: string;
  readonly runs: readonly ScenarioRun[];
  /** Log lines are compared unless false (wordings not yet Puppet's). */
  readonly compareLogs?: boolean;
}

export interface Scenario extends ScenarioSpec {
  readonly name: string;
  readonly dir: string;
}

export interface EventOutcome {
  readonly property: string;
  readonly name: string;
  readonly status: string;
  readonly previous_value: unknown;
  readonly desired_value: unknown;
  readonly message: string;
}

export interface ResourceOutcome {
  readonly changed: boolean;
  readonly skipped: boolean;
  readonly failed: boolean;
  readonly failed_to_restart: boolean;
  readonly out_of_sync: boolean;
  readonly events: readonly EventOutcome[];
}

export interface LogOutcome {
  readonly level: string;
  readonly source: string;
  readonly message: string;
}

export interface TreeEntry {
  readonly path: string;
  readonly type: "file" | "directory" | "link" | "other";
  readonly mode: string;
  readonly uid: number;
  readonly gid: number;
  readonly sha256?: string;
  readonly target?: string;
}

export interface RunOutcome {
  readonly exitCode: number;
  /** The report's status: changed, unchanged, failed; absent when no report was written. */
  readonly status?: string;
  readonly resources: Readonly<Record<string, ResourceOutcome>>;
  readonly logs: readonly LogOutcome[];
  readonly tree: readonly TreeEntry[];
}

export interface Expected {
  readonly puppetVersion: string;
  readonly runs: readonly RunOutcome[];
}

/** Every scenario directory, by name. */
export function listScenarios(): Scenario[] {
  return readdirSync(scenariosDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(scenariosDir, e.name, "manifest.pp")))
    .map((e) => loadScenario(e.name))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function loadScenario(name: string): Scenario {
  const dir = join(scenariosDir, name);
  const specFile = join(dir, "scenario.json");
  const spec: ScenarioSpec = existsSync(specFile)
    ? (JSON.parse(readFileSync(specFile, "utf8")) as ScenarioSpec)
    : { runs: [{}] };
  return { ...spec, runs: spec.runs ?? [{}], name, dir };
}

/** Fills `root` with the scenario's setup: `setup/` copied, then `setup.sh` run in it (ROOT set). */
export function prepareRoot(scenario: Scenario, root: string): void {
  mkdirSync(root, { recursive: true });
  const setup = join(scenario.dir, "setup");
  if (existsSync(setup)) cpSync(setup, root, { recursive: true, verbatimSymlinks: true });
  const script = join(scenario.dir, "setup.sh");
  if (existsSync(script)) {
    const run = spawnSync("/bin/sh", [script], {
      cwd: root,
      env: { ...process.env, ROOT: root },
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`${script} failed (${run.status}): ${run.stderr}`);
  }
}

/** The scenario's modules directory, when it has one. */
export function modulesOf(scenario: Scenario): string | undefined {
  const dir = join(scenario.dir, "modules");
  return existsSync(dir) ? dir : undefined;
}

/**
 * A scratch Puppet configuration under `scratch`: puppet.conf with every
 * directory inside it, and fixed Debian 12 facts so that facter never
 * reads the machine. Returns the confdir.
 */
export function writeScratchConf(scratch: string): string {
  const etc = join(scratch, "etc");
  mkdirSync(etc, { recursive: true });
  const lines = [
    "[main]",
    `vardir = ${scratch}/var`,
    `codedir = ${scratch}/code`,
    `logdir = ${scratch}/var/log`,
    `rundir = ${scratch}/var/run`,
    `publicdir = ${scratch}/var/public`,
    `ssldir = ${scratch}/etc/ssl`,
    `vendormoduledir = ${scratch}/vendor_modules`,
    "basemodulepath = $codedir/modules:/usr/share/puppet/modules",
    `cadir = ${scratch}/etc/ca`,
    "report = true",
    "reports = store",
    "",
  ];
  writeFileSync(join(etc, "puppet.conf"), lines.join("\n"));
  const facts = JSON.stringify({
    name: NODE,
    values: fixedFacts(NODE),
    timestamp: "2024-01-01T00:00:00+00:00",
  });
  for (const sub of ["server_data/facts", "client_data/facts"]) {
    mkdirSync(join(scratch, "var", sub), { recursive: true });
    writeFileSync(join(scratch, "var", sub, `${NODE}.json`), facts);
  }
  return etc;
}

/** A fixed Debian 12 fact set for `node` (the machine's own facts are never read). */
export function fixedFacts(node: string): Record<string, unknown> {
  const [host, ...rest] = node.split(".");
  const domain = rest.join(".");
  return {
    clientcert: node,
    fqdn: node,
    hostname: host,
    domain,
    kernel: "Linux",
    osfamily: "Debian",
    operatingsystem: "Debian",
    os: {
      name: "Debian",
      family: "Debian",
      architecture: "amd64",
      release: { full: "12.7", major: "12", minor: "7" },
      distro: { codename: "bookworm", id: "Debian", release: { full: "12.7", major: "12", minor: "7" } },
      selinux: { enabled: false },
    },
    networking: { fqdn: node, hostname: host, domain, ip: "192.0.2.10", primary: "eth0" },
    processors: { count: 2 },
    kernelrelease: "6.1.0-18-amd64",
    architecture: "amd64",
    ipaddress: "192.0.2.10",
    timezone: "UTC",
    identity: { user: "root", uid: 0, gid: 0, group: "root", privileged: true },
    service_provider: "systemd",
    puppetversion: "7.23.0",
    // Puppet's agent adds it to the facts of every run; `catalog compile` does not
    // (puppetlabs-concat's fragments need it).
    clientversion: "7.23.0",
    path: "/usr/sbin:/usr/bin:/sbin:/bin",
  };
}

/** Puppet's resources that Puppet adds to every run by itself, left out of comparisons. */
const IMPLICIT = /^(Schedule\[(puppet|hourly|daily|weekly|monthly|never)\]|Filebucket\[puppet\])$/;

/** Log lines that carry times or Puppet's own bookkeeping, left out of comparisons. */
const VOLATILE_LOG =
  /^(Applied catalog in |Compiled catalog for |Using environment |Caching catalog |Finished catalog run )/;

interface ReportYaml {
  status?: string;
  logs?: { level: string; source: string; message: string }[];
  resource_statuses?: Record<string, Record<string, unknown> & { events?: Record<string, unknown>[] }>;
}

/** Replaces every occurrence of the `replacements`' keys in the strings inside `value`. */
export function replacePaths<T>(value: T, replacements: readonly (readonly [string, string])[]): T {
  if (typeof value === "string") {
    let text: string = value;
    for (const [from, to] of replacements) text = text.split(from).join(to);
    return text as T;
  }
  if (Array.isArray(value)) return value.map((v) => replacePaths(v, replacements)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[replacePaths(k, replacements)] = replacePaths(v, replacements);
    return out as T;
  }
  return value;
}

/**
 * A run's outcome from the report YAML Puppet (or tend) wrote, with the
 * scratch paths replaced (`replacements`: e.g. [root, "@ROOT@"]).
 */
export function readOutcome(
  reportFile: string | undefined,
  exitCode: number,
  root: string,
  replacements: readonly (readonly [string, string])[],
): RunOutcome {
  const report: ReportYaml =
    reportFile && existsSync(reportFile)
      ? (decodeBinary(
          parseYaml(readFileSync(reportFile, "utf8"), {
            logLevel: "error",
            customTags: ["binary", PSYCH_BINARY],
          }),
        ) as ReportYaml)
      : {};
  const resources: Record<string, ResourceOutcome> = {};
  for (const [ref, status] of Object.entries(report.resource_statuses ?? {})) {
    if (IMPLICIT.test(ref)) continue;
    resources[ref] = {
      changed: status.changed === true,
      skipped: status.skipped === true,
      failed: status.failed === true,
      failed_to_restart: status.failed_to_restart === true,
      out_of_sync: status.out_of_sync === true,
      events: (status.events ?? []).map((e) => ({
        property: String(e.property),
        name: String(e.name),
        status: String(e.status),
        previous_value: e.previous_value ?? null,
        desired_value: e.desired_value ?? null,
        message: String(e.message),
      })),
    };
  }
  const logs = (report.logs ?? [])
    .filter((l) => !VOLATILE_LOG.test(String(l.message)))
    .map((l) => ({ level: String(l.level), source: String(l.source), message: String(l.message) }));
  const outcome: RunOutcome = {
    exitCode,
    status: report.status,
    resources,
    logs,
    tree: snapshotTree(root),
  };
  return normaliseVolatile(replacePaths(outcome, replacements));
}

/** Psych's own tag for Ruby's binary strings (`!binary`, not YAML's `!!binary`), as bytes. */
const PSYCH_BINARY = {
  tag: "!binary",
  resolve: (text: string): Uint8Array => new Uint8Array(Buffer.from(text.replace(/\s/g, ""), "base64")),
};

/** Strings Psych wrote as `!binary` (Ruby's binary strings), as the text they hold. */
function decodeBinary(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  if (Array.isArray(value)) return value.map(decodeBinary);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decodeBinary(v)]));
  return value;
}

/**
 * Puppet's volatile names in messages: the lock file it makes beside a
 * file it writes (`config20261127-23999-15ipcsu.lock`, date, pid, random).
 */
function normaliseVolatile<T>(value: T): T {
  if (typeof value === "string") return value.replace(/\d{8}-\d+-[0-9a-z]+\.lock\b/g, "@LOCK@") as T;
  if (Array.isArray(value)) return value.map(normaliseVolatile) as T;
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normaliseVolatile(v)])) as T;
  return value;
}

/** A parsed-file provider's header note says when it wrote the file: that time is left out. */
function withoutWriteTime(data: Buffer): Buffer {
  const head = "# HEADER: This file was autogenerated at ";
  if (!data.subarray(0, head.length).equals(Buffer.from(head))) return data;
  return Buffer.from(
    data.toString("utf8").replace(/^(# HEADER: This file was autogenerated at ).*$/m, "$1TIME"),
  );
}

/** Every entry under `root` (not the root itself), sorted by path. */
export function snapshotTree(root: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = prefix === "" ? name : `${prefix}/${name}`;
      const stat = lstatSync(path);
      const base = {
        path: rel,
        mode: (stat.mode & 0o7777).toString(8).padStart(4, "0"),
        uid: stat.uid,
        gid: stat.gid,
      };
      if (stat.isSymbolicLink())
        entries.push({ ...base, type: "link", mode: "", target: readlinkSync(path) });
      else if (stat.isDirectory()) {
        entries.push({ ...base, type: "directory" });
        walk(path, rel);
      } else if (stat.isFile()) {
        const sha256 = createHash("sha256")
          .update(withoutWriteTime(readFileSync(path)))
          .digest("hex");
        entries.push({ ...base, type: "file", sha256 });
      } else entries.push({ ...base, type: "other" });
    }
  };
  if (existsSync(root)) walk(root, "");
  return entries;
}

/** Types a catalog uses that are not containers (classes, stages, defined types). */
export function leafTypes(catalog: {
  resources: readonly { type: string; title: string }[];
  edges: readonly { source: string }[];
}): Set<string> {
  const containers = new Set(["class", "stage", "node"]);
  for (const edge of catalog.edges)
    containers.add(edge.source.slice(0, edge.source.indexOf("[")).toLowerCase());
  return new Set(catalog.resources.map((r) => r.type.toLowerCase()).filter((t) => !containers.has(t)));
}
