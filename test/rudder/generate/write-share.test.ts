// WriteTechniquesTest (Rudder 8.3) whole: every file of expected-share/<case>,
// with Rudder's system techniques (common, inventory, the server ones), the
// system variables of NodeConfigData.scala's root server and node, and the
// comparison rules of the Scala test (files and lines it ignores).
// See test/fixtures/rudder/write-techniques/README.md.
import assert from "node:assert/strict";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfiguration } from "../../../src/rudder/config/load.js";
import { type GenerateOptions, generateNode } from "../../../src/rudder/generate/index.js";
import { writePolicyDirectory } from "../../../src/rudder/generate/write.js";
import { runTend } from "../../cli/run-tend.js";
import { CASES, type D, type R, REVISIONS_CASE } from "./write-techniques-cases.js";

const FIXTURES = join(import.meta.dirname, "../../../../test/fixtures/rudder/write-techniques");
const SHARE = join(FIXTURES, "expected-share");
/** NodeConfigData.CERT: the certificate of both the root server and the node. */
const CERT = readFileSync(join(SHARE, "root-default-install/certs/root.pem"), "utf8");
const NODE = "c8813416-316f-4307-9b6a-ca9c109a9fb0";

const SYSTEM_TECHNIQUES = [
  "server-common",
  "rudder-service-apache",
  "rudder-service-postgresql",
  "rudder-service-relayd",
  "rudder-service-slapd",
  "rudder-service-webapp",
];

/** The system directives and rules NodeConfigData gives root and the node. */
const SYSTEM_DIRECTIVES: (D & { system: true })[] = [
  {
    id: "common-hasPolicyServer-root",
    name: "Common",
    technique: "common",
    version: "1.0",
    values: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's node variables
      OWNER: "${node.admin}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's node variables
      UUID: "${node.id}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's node variables
      POLICYSERVER_ID: "${node.policyserver.id}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's node variables
      POLICYSERVER_ADMIN: "${node.policyserver.admin}",
      ALLOWEDNETWORK: [""],
    },
    priority: 0,
    system: true,
  },
  {
    id: "inventory-all",
    name: "Inventory",
    technique: "inventory",
    version: "1.0",
    priority: 0,
    system: true,
  },
  ...SYSTEM_TECHNIQUES.map((t) => ({
    id: `${t}-root`,
    name: `Server ${t} - root`,
    technique: t,
    version: "1.0",
    priority: 0,
    system: true as const,
  })),
];

const SYSTEM_RULES: (R & { targets: string[] })[] = [
  {
    id: "hasPolicyServer-root",
    name: "Rudder system policy: basic setup (common)",
    directives: ["common-hasPolicyServer-root"],
    targets: ["special:all"],
  },
  {
    id: "inventory-all",
    name: "Rudder system policy: daily inventory",
    directives: ["inventory-all"],
    targets: ["special:all"],
  },
  {
    id: "policy-server-root",
    name: "Rule for policy server root",
    directives: SYSTEM_TECHNIQUES.map((t) => `${t}-root`),
    targets: ["policyServer:root"],
  },
];

/** NodeConfigData's group library (groupLib), in its order. */
const TARGET_NAMES = {
  "policyServer:root": "special:policyServer_root",
  "special:all_exceptPolicyServers": "special:all_exceptPolicyServers",
  "special:all": "special:all",
};

interface ShareCase {
  readonly name: string;
  /** the case of write-techniques-cases.ts with the user directives */
  readonly user: string;
  /** the node whose policies are compared */
  readonly node: "root" | typeof NODE;
  /** the nodes Rudder knows (allNodeFacts_rootOnly or allNodeFacts_cfeNode) */
  readonly withNode: boolean;
  readonly rootProperties?: Record<string, string>;
  readonly ntpserver?: boolean;
  readonly ignore?: readonly string[];
  readonly options?: GenerateOptions;
  /** the node configuration id WriteTechniquesTest gives */
  readonly configId?: string;
}

const CLOCK_AND_RPM = [String.raw`.*rudder_common_report\("ntpConfiguration".*@@.*`, ".*add:default:==:.*"];

const SHARE_CASES: ShareCase[] = [
  {
    name: "root-default-install",
    user: "root-default-install",
    node: "root",
    withNode: false,
    rootProperties: { hidden: "hiddenValue" },
    ntpserver: true,
  },
  {
    name: "root-with-two-directives",
    user: "root-with-two-directives",
    node: "root",
    withNode: false,
    rootProperties: { hidden: "hiddenValue" },
    ntpserver: true,
    ignore: CLOCK_AND_RPM,
  },
  {
    name: "root-with-one-multipolicy",
    user: "root-with-one-multipolicy",
    node: "root",
    withNode: false,
    rootProperties: { hidden: "hiddenValue" },
    ntpserver: true,
    ignore: CLOCK_AND_RPM,
  },
  {
    name: "node-cfe-with-two-directives",
    user: "node-cfe-with-two-directives",
    node: NODE,
    withNode: true,
    ignore: CLOCK_AND_RPM,
  },
  { name: "node-gen-var-def-override", user: "node-gen-var-def-override", node: NODE, withNode: true },
  {
    name: "root-sys-var-false",
    user: "root-sys-var-false",
    node: "root",
    withNode: true,
    options: { systemVariableOverrides: new Map([["DENYBADCLOCKS", ["false"]]]) },
  },
  {
    name: "node-cfe-with-500-directives",
    user: "node-cfe-with-500-directives",
    node: NODE,
    withNode: true,
    configId: "cfe-node-cfg-id-500",
  },
];

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

const OS = { name: "Debian", fullName: "Jessie", version: "7.0", kernelVersion: "3.2" };

function buildConfig(dir: string, c: ShareCase, targetNames: Record<string, string> = TARGET_NAMES): void {
  mkdirSync(dir, { recursive: true });
  const user = [...CASES, REVISIONS_CASE].find((x) => x.name === c.user);
  assert.ok(user, c.user);
  cpSync(join(FIXTURES, "techniques"), join(dir, "techniques"), { recursive: true });
  cpSync(join(FIXTURES, "ncf"), join(dir, "ncf"), { recursive: true });
  for (const sub of ["directives", "rules", "nodes", "groups"]) mkdirSync(join(dir, sub));
  for (const d of [...SYSTEM_DIRECTIVES, ...user.directives]) {
    writeJson(join(dir, "directives", `${d.id}.json`), {
      id: d.id,
      displayName: d.name,
      techniqueName: d.technique,
      techniqueVersion: d.version,
      parameters: d.values ?? {},
      priority: d.priority ?? 5,
      policyMode: d.mode ?? "default",
      enabled: true,
      system: "system" in d,
    });
  }
  for (const r of [...SYSTEM_RULES, ...user.rules]) {
    writeJson(join(dir, "rules", `${r.id}.json`), {
      id: r.id,
      displayName: r.name,
      directives: r.directives,
      targets: "targets" in r ? r.targets : ["special:all"],
      enabled: true,
      system: "targets" in r,
    });
  }
  writeJson(join(dir, "groups", "a-group-for-root-only.json"), {
    id: "a-group-for-root-only",
    displayName: "Serveurs [€ðŋ] cassés",
    nodeIds: ["root"],
  });
  writeJson(join(dir, "nodes", "root.json"), {
    id: "root",
    hostname: "server.rudder.local",
    policyServerId: "root",
    isPolicyServer: true,
    nodeKind: "root",
    policyMode: "enforce",
    agent: { type: "cfengine-community", version: "7.0.0", user: "root", certificate: CERT },
    os: OS,
    machine: { type: "vbox" },
    ipAddresses: ["127.0.0.1", "192.168.0.100"],
    timezone: { name: "UTC", offset: "+00" },
    allowedNetworks: ["192.168.12.0/24", "192.168.49.0/24", "127.0.0.1/24"],
    properties: c.rootProperties ?? {},
  });
  if (c.withNode)
    writeJson(join(dir, "nodes", `${NODE}.json`), {
      id: NODE,
      hostname: "node1.localhost",
      policyServerId: "root",
      agent: { type: "cfengine-community", version: "6.0.0", user: "root", certificate: CERT },
      os: OS,
      machine: { type: "vbox" },
      ipAddresses: ["192.168.0.10"],
      ram: 1460132,
    });
  const parameters = [{ id: "rudder_file_edit_header", value: "### Managed by Rudder, edit with care ###" }];
  if (c.ntpserver) parameters.push({ id: "ntpserver", value: 'pool."ntp".org' });
  writeJson(join(dir, "parameters.json"), parameters);
  writeJson(join(dir, "settings.json"), {
    global_policy_mode: "audit",
    global_policy_mode_overridable: true,
    rudder_compliance_mode: "full-compliance",
    heartbeat_frequency: 15,
    run_frequency: 5,
    first_run_minute: 1,
    first_run_hour: 0,
    splay_time: 4,
    target_names: targetNames,
    server: {
      instanceId: "test-instance-id",
      toolsFolder: "tools_folder",
      communityPort: 5309,
      httpsPort: 443,
      sharedFilesFolder: "/var/rudder/configuration-repository/shared-files",
      webdavUser: "rudder",
      webdavPassword: "rudder",
      reportsDbUri: "jdbc:postgresql://localhost:5432/rudder",
      reportsDbUser: "rudder",
      reportsDbPassword: "secret",
      configurationRepository: "/tmp/test-rudder-config-repo-tend/configuration-repository",
      serverVersion: "7.0.0",
      denyBadClocks: true,
      relaySyncMethod: "classic",
      relaySyncPromises: false,
      relaySyncSharedFiles: false,
      modifiedFilesTtl: 30,
      cfengineOutputsTtl: 7,
    },
  });
}

function listFiles(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** The files WriteTechniquesTest leaves out of the comparison (filterGeneratedFile). */
const IGNORED_FILES = new Set([
  "rudder_promises_generated",
  "rudder-promises-generated",
  "policy-server.pem",
]);
/** The lines it leaves out (compareWith), whole-line regexes. */
const IGNORED_LINES = [
  `.*rudder_node_config_id" string => .*`,
  `.*string => "/.*/configuration-repository.*`,
  ".*/test-rudder-config-repo-.*",
];

/** The expected files of a case; the 500 copyGitFile ones made as WriteTechniquesTest makes them. */
function expectedFiles(name: string): Map<string, string> {
  const out = new Map<string, string>();
  const base = join(SHARE, name);
  for (const f of listFiles(base)) {
    if (IGNORED_FILES.has(f.slice(f.lastIndexOf("/") + 1))) continue;
    out.set(f, readFileSync(join(base, f), "utf8"));
  }
  if (name === "node-cfe-with-500-directives") {
    const tml = readFileSync(join(SHARE, "copyFileFromSharedFolder.cf"), "utf8");
    for (let i = 1; i <= 500; i++) {
      const text = tml.replaceAll("TOKEN", String(i)).replaceAll("RECURSION", String(i % 2));
      out.set(`copyGitFile/2_3_directive_copyGitFile${i}/copyFileFromSharedFolder.cf`, text);
    }
  }
  return out;
}

/**
 * Rudder's test gives its drafts without interpolation, so its clock file
 * keeps `${rudder.param.ntpserver}`; tend expands the parameter (escaped).
 */
function interpolated(text: string): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Rudder's parameter syntax
  return text.replaceAll("${rudder.param.ntpserver}", String.raw`pool.\"ntp\".org`);
}

function filtered(text: string, ignore: readonly string[]): string {
  const res = ignore.map((r) => new RegExp(`^(?:${r})$`));
  return text
    .split("\n")
    .filter((l) => !res.some((r) => r.test(l)))
    .join("\n");
}

/** What differs between the files generated for `c` and its expected-share files. */
function differences(
  c: ShareCase,
  files: ReadonlyMap<string, string>,
): { wrong: string[]; compared: number } {
  const expected = expectedFiles(c.name);
  const ignore = [...IGNORED_LINES, ...(c.ignore ?? [])];
  const wrong: string[] = [];
  for (const [path, text] of expected) {
    const got = files.get(path);
    if (got === undefined) wrong.push(`missing ${path}`);
    else if (filtered(got, ignore) !== filtered(interpolated(text), ignore)) wrong.push(`differs ${path}`);
  }
  for (const path of files.keys()) {
    if (path === "expected-reports.json" || IGNORED_FILES.has(path.slice(path.lastIndexOf("/") + 1)))
      continue;
    if (!expected.has(path)) wrong.push(`not expected ${path}`);
  }
  return { wrong, compared: expected.size };
}

function generateCase(dir: string, c: ShareCase) {
  buildConfig(dir, c);
  const { config, diagnostics } = loadConfiguration(dir);
  assert.deepEqual(
    diagnostics.filter((d) => d.severity === "error"),
    [],
  );
  const result = generateNode(config, c.node, {
    nodeConfigId: c.configId ?? (c.node === "root" ? "root-cfg-id" : "cfe-node-cfg-id"),
    ...c.options,
  });
  assert.ok(result.ok, JSON.stringify(result.messages));
  return result;
}

for (const c of SHARE_CASES) {
  test(`WriteTechniquesTest ${c.name}: every file of expected-share/${c.name}`, (t) => {
    const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const result = generateCase(dir, c);
    const dump = process.env.TEND_RUDDER_SHARE_DUMP;
    if (dump)
      for (const [path, text] of result.files) {
        mkdirSync(join(dump, c.name, path, ".."), { recursive: true });
        writeFileSync(join(dump, c.name, path), text);
      }
    const { wrong, compared } = differences(c, result.files);
    assert.deepEqual(wrong, [], `${c.name}: ${compared} files compared`);
  });
}

test("WriteTechniquesTest root-default-install with old files in the way: written over, on disk", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const c = SHARE_CASES[0] as ShareCase;
  const result = generateCase(join(dir, "config"), c);
  // As WriteTechniquesTest's addCrap: garbage where the policies go, and a leftover new folder.
  const out = join(dir, "share", "root");
  const crap = `some text that should be overwritten during generation
"common-root","audit","merged","false","common","1.0","true","Common"
"inventory-all","audit","merged","false","inventory","1.0","true","Inventory"
some more crap
`;
  for (const base of [out, join(dir, "share", ".root.tend-new-1-1")])
    for (const f of [
      "promises.cf",
      "rudder.json",
      "rudder-directives.csv",
      "certs/root.pem",
      "certs/policy-server.pem",
      "inventory/1.0/test-inventory.pl",
      "stale/1.0/stale.cf",
    ]) {
      mkdirSync(join(base, f, ".."), { recursive: true });
      writeFileSync(join(base, f), crap);
    }
  writePolicyDirectory(out, result.files);
  const onDisk = new Map(listFiles(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
  const { wrong, compared } = differences(c, onDisk);
  assert.deepEqual(wrong, [], `${c.name}: ${compared} files compared`);
});

test("tend rudder generate writes a node's whole policy directory as Rudder does", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const c = SHARE_CASES.find((x) => x.name === "node-cfe-with-two-directives") as ShareCase;
  buildConfig(join(dir, "config"), c);
  const r = runTend(["rudder", "generate", "-c", "config", "-n", NODE, "-o", "out"], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const out = join(dir, "out");
  const onDisk = new Map(listFiles(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
  // The configuration id is tend's digest of the files, not the one the Scala test gives.
  const id = /"RUDDER_NODE_CONFIG_ID":"([0-9a-f]{32})"/.exec(onDisk.get("rudder.json") ?? "")?.[1];
  assert.ok(id, "rudder.json has tend's node configuration id");
  for (const [path, text] of onDisk) onDisk.set(path, text.replaceAll(id, "cfe-node-cfg-id"));
  const { wrong, compared } = differences(c, onDisk);
  assert.deepEqual(wrong, [], `${c.name}: ${compared} files compared`);
});

/** WriteTechniquesTest "rudder-group.st template": the groups file of root with two group libraries. */
for (const [label, names, groups, want] of [
  ["no groups", {}, false, "no-group.cf"],
  [
    "some groups",
    {
      "policyServer:root": TARGET_NAMES["policyServer:root"],
      "special:all_exceptPolicyServers": "special:all_exceptPolicyServers",
    },
    true,
    "some-groups.cf",
  ],
] as const) {
  test(`WriteTechniquesTest rudder-groups.st with ${label}: common/1.0/rudder-groups.cf`, (t) => {
    const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const c = SHARE_CASES[0] as ShareCase;
    buildConfig(dir, c, names);
    if (!groups) rmSync(join(dir, "groups", "a-group-for-root-only.json"));
    const result = generateNode(loadConfiguration(dir).config, "root", { nodeConfigId: "root-cfg-id" });
    assert.ok(result.ok, JSON.stringify(result.messages));
    assert.equal(
      result.files.get("common/1.0/rudder-groups.cf"),
      readFileSync(join(SHARE, "test-rudder-groups", want), "utf8"),
    );
  });
}

const hasGit = spawnSync("git", ["--version"]).status === 0;

test("WriteTechniquesTest technique-and-revisions: a directive pinned to its technique's older commit", (t) => {
  if (!hasGit) {
    t.skip("git is not installed");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const c: ShareCase = {
    name: "technique-and-revisions",
    user: "technique-and-revisions",
    node: "root",
    withNode: false,
    ntpserver: true,
    ignore: [...CLOCK_AND_RPM, ".*directive1.*enforce.*merged.*3.0.*Clock Configuration.*"],
  };
  buildConfig(dir, c);
  const git = (...args: string[]) => {
    const r = spawnSync("git", ["-c", "user.name=tend", "-c", "user.email=tend@localhost", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.trim();
  };
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "initial");
  const initial = git("rev-parse", "HEAD");
  // As the Scala test: the template changes on HEAD; the directive keeps the initial one.
  const tml = join(dir, "techniques/clockConfiguration/3.0/clockConfiguration.st");
  writeFileSync(tml, `${readFileSync(tml, "utf8")}# the file is modified on HEAD\n`);
  git("commit", "-q", "-a", "-m", "Update template file");
  const directive = join(dir, "directives", "directive1+rev1.json");
  const d = JSON.parse(readFileSync(directive, "utf8")) as Record<string, unknown>;
  writeFileSync(directive, JSON.stringify({ ...d, techniqueVersion: `3.0+${initial}` }));
  const { config, diagnostics } = loadConfiguration(dir);
  assert.deepEqual(
    diagnostics.filter((x) => x.severity === "error"),
    [],
  );
  const result = generateNode(config, "root", { nodeConfigId: "root-cfg-id" });
  assert.ok(result.ok, JSON.stringify(result.messages));
  const { wrong, compared } = differences(c, result.files);
  assert.deepEqual(wrong, [], `${c.name}: ${compared} files compared`);
  assert.match(result.files.get("rudder-directives.csv") ?? "", new RegExp(`"3\\.0\\+${initial}"`));
});

test("SystemVariableService: a node whose agent only reports by syslog (before 6.0) is refused", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "tend-rudder-share-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const c = SHARE_CASES.find((x) => x.name === "node-gen-var-def-override") as ShareCase;
  buildConfig(dir, c);
  const file = join(dir, "nodes", `${NODE}.json`);
  const node = JSON.parse(readFileSync(file, "utf8")) as { agent: Record<string, string> };
  node.agent.version = "5.0.13";
  writeFileSync(file, JSON.stringify(node));
  const result = generateNode(loadConfiguration(dir).config, NODE);
  assert.equal(result.ok, false);
  assert.match(JSON.stringify(result.messages), /doesn't support sending compliance reports in HTTPS/);
});
