/**
 * Rudder's system variables for one node (SystemVariableService.getSystemVariables
 * and the ones PrepareTemplateVariables adds): the node's kind and run
 * schedule, its policy server's key hashes, the networks and children a
 * policy server serves, the groups the node is in, the server's settings.
 * Every technique template sees them, next to its own variables;
 * rudder.json lists them.
 */
import { X509Certificate, createHash } from "node:crypto";
import { targetHasNode } from "../config/groups.js";
import type { Configuration, Node, Target } from "../config/model.js";
import type { PolicyMode } from "../expected-reports.js";
import type { GlobalPolicyMode } from "./policy.js";
import { computeMode } from "./policy.js";

/** A system variable's values and how its spec types it (SystemVariableSpecServiceImpl). */
export interface SystemVariable {
  readonly values: readonly string[];
  readonly multivalued: boolean;
  readonly boolean?: boolean;
}

export type SystemVariables = Map<string, SystemVariable>;

const BOOLEAN = new Set(["DENYBADCLOCKS", "RELAY_SYNC_PROMISES", "RELAY_SYNC_SHAREDFILES"]);

const one = (name: string, value: string): [string, SystemVariable] => [
  name,
  { values: [value], multivalued: false, ...(BOOLEAN.has(name) ? { boolean: true } : {}) },
];
const many = (name: string, values: readonly string[]): [string, SystemVariable] => [
  name,
  { values, multivalued: true },
];

/** The key hashes of an agent certificate: CFEngine's (MD5 of n and e) and sha256 of the DER public key. */
export interface KeyHashes {
  readonly cfengine: string;
  readonly sha256: string;
}

export function keyHashes(certificate: string | undefined): KeyHashes | undefined {
  if (certificate === undefined || certificate.trim() === "") return undefined;
  try {
    const key = new X509Certificate(certificate).publicKey;
    const jwk = key.export({ format: "jwk" });
    if (typeof jwk.n !== "string" || typeof jwk.e !== "string") return undefined;
    const n = Buffer.from(jwk.n, "base64url");
    const e = Buffer.from(jwk.e, "base64url");
    return {
      cfengine: `MD5=${createHash("md5")
        .update(Buffer.concat([n, e]))
        .digest("hex")}`,
      sha256: createHash("sha256")
        .update(key.export({ type: "spki", format: "der" }))
        .digest("base64"),
    };
  } catch {
    return undefined;
  }
}

/** ComputeSchedule.computeSchedule: the start time (minutes from midnight) and CFEngine's schedule. */
export function computeSchedule(
  startHour: number,
  startMinute: number,
  interval: number,
): { start: number; schedule: string } | string {
  const minutes = interval % 60;
  const hours = Math.floor(interval / 60);
  const two = (n: number) => String(n).padStart(2, "0");
  if (minutes > 0 && hours > 0)
    return `Agent execution interval can only be defined as minutes (less than 60) or complete hours, (${hours} hours ${minutes} minutes is not supported)`;
  if (hours === 0) {
    const first = startMinute % minutes;
    const mins: string[] = [];
    for (let m = first; m < 60; m += minutes) mins.push(`"Min${two(m)}"`);
    return { start: first, schedule: mins.join(", ") };
  }
  const first = startHour % hours;
  const hrs: string[] = [];
  for (let h = first; h < 24; h += hours) hrs.push(`"Hr${two(h)}.Min${two(startMinute)}"`);
  return { start: first * 60 + startMinute, schedule: hrs.join(", ") };
}

/** ComputeSchedule.computeSplayTime, in seconds: the node id's bytes as a number, modulo the splay. */
export function computeSplayTime(nodeId: string, intervalMinutes: number, splayMinutes: number): number {
  if (nodeId === "" || splayMinutes === 0 || intervalMinutes === 0) return 0;
  const splay = BigInt(Math.min(splayMinutes, intervalMinutes) * 60);
  const bytes = Buffer.from(nodeId, "utf8");
  let n = BigInt(`0x${bytes.toString("hex")}`);
  // Java's BigInteger(byte[]) reads two's complement.
  if ((bytes[0] ?? 0) >= 0x80) n -= 1n << BigInt(bytes.length * 8);
  const mod = ((n % splay) + splay) % splay;
  return Number(mod % 86400n);
}

function formatTime(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const s = seconds % 86400;
  return `${two(Math.floor(s / 3600))}:${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
}

/** RuleTarget.toCFEngineClassName. */
export function cfengineClassName(target: string): string {
  const ascii = target.normalize("NFD").replace(/[\p{Mn}\p{Me}]+/gu, "");
  // Java's \p{Alnum} is ASCII only; a character outside the BMP is two chars there.
  return `group_${ascii.toLowerCase().replace(/[^A-Za-z0-9]/gu, (c) => "_".repeat(c.length))}`;
}

/** The targets of the group library the node is in, as (id, name), in library order. */
export function nodeTargets(config: Configuration, node: Node): [string, string][] {
  const out: [string, string][] = [];
  for (const g of config.groups.values()) {
    if (g.enabled && targetHasNode(config, { kind: "group", id: g.id }, node, () => {}))
      out.push([g.id, g.displayName]);
  }
  for (const [id, name] of Object.entries(config.settings.targetNames)) {
    const [kind, value] = [id.slice(0, id.indexOf(":")), id.slice(id.indexOf(":") + 1)];
    let target: Target | undefined;
    if (
      kind === "special" &&
      (value === "all" || value === "all_exceptPolicyServers" || value === "all_policyServers")
    )
      target = { kind: "special", value };
    else if (kind === "policyServer") target = { kind: "policyServer", id: value };
    if (target && targetHasNode(config, target, node, () => {})) out.push([id, name]);
  }
  return out;
}

function groupStrings(groups: readonly [string, string][]): { vars: string; classes: string } {
  if (groups.length === 0) return { vars: "", classes: "" };
  const width = Math.max(...groups.flatMap(([id, name]) => [id.length, name.length]));
  const pad = (n: number) => " ".repeat(Math.max(0, n));
  const meta = `meta => { "inventory", "attribute_name=rudder_groups" };`;
  const vars = groups
    .map(
      ([id, name]) =>
        `"by_uuid[${id}]" ${pad(width - id.length)} string => "${name.replaceAll('"', '\\"')}",\n` +
        `            ${pad(width)}   ${meta}`,
    )
    .join("\n");
  const classes = groups
    .flatMap(([id, name]) =>
      [
        [id, cfengineClassName(id)],
        [name, cfengineClassName(name)],
      ].map(
        ([raw, cls]) =>
          `"${cls}" ${pad(width - (raw as string).length)} expression => "any",\n` +
          `             ${pad(width)}   ${meta}`,
      ),
    )
    .join("\n");
  return { vars, classes };
}

/** lift-json's prettyRender, which Rudder's JSON files are written with. */
export function liftJson(value: unknown, indent = ""): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map((v) => inner + liftJson(v, inner)).join(",\n")}\n${indent}]`;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}:${liftJson(v, inner)}`).join(",\n")}\n${indent}}`;
  }
  return JSON.stringify(value ?? null);
}

function str(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/** RUDDER_INVENTORY_VARS: the node's inventory as SystemVariableService.nodeInfoToJson gives it. */
function inventoryVars(node: Node): string {
  const f = node.facts;
  return liftJson({
    hostname: node.hostname,
    policyServerId: node.policyServerId,
    localAdministratorAccountName: node.agent.user,
    archDescription: str(f.osArchitectureDescription),
    ram: str(f.ram ?? 0),
    timezone: str(f.timezone),
    os: {
      name: str(f.osName),
      fullName: str(f.osFullName),
      version: str(f.osVersion),
      kernelVersion: str(f.osKernelVersion),
      servicePack: str(f.osServicePack),
    },
    machine: { machineType: str(f.machineType), manufacturer: str(f.manufacturer) },
  });
}

export interface SystemVariableProblem {
  readonly level: "warning" | "error";
  readonly message: string;
}

/**
 * The node's system variables, without the bundle sequence ones (which
 * come from its policies) and with RUDDER_NODE_CONFIG_ID given by the caller.
 */
export function nodeSystemVariables(
  config: Configuration,
  node: Node,
  global: GlobalPolicyMode,
  nodeConfigId: string,
  problems: SystemVariableProblem[],
): SystemVariables {
  const s = config.settings;
  const server = s.server;
  const vars: SystemVariables = new Map([
    one("INSTANCE_ID", server.instanceId),
    one("TOOLS_FOLDER", server.toolsFolder),
    one("SHARED_FILES_FOLDER", server.sharedFilesFolder),
    one("COMMUNITYPORT", String(server.communityPort)),
    one("HTTPS_POLICY_DISTRIBUTION_PORT", String(server.httpsPort)),
    one("DAVUSER", server.webdavUser),
    one("DAVPASSWORD", server.webdavPassword),
    one("CONFIGURATION_REPOSITORY_FOLDER", server.configurationRepository),
    one("DENYBADCLOCKS", String(server.denyBadClocks)),
    one("RELAY_SYNC_METHOD", server.relaySyncMethod),
    one("RELAY_SYNC_PROMISES", String(server.relaySyncPromises)),
    one("RELAY_SYNC_SHAREDFILES", String(server.relaySyncSharedFiles)),
    one("MODIFIED_FILES_TTL", String(server.modifiedFilesTtl)),
    one("CFENGINE_OUTPUTS_TTL", String(server.cfengineOutputsTtl)),
    one("SEND_METRICS", "no"),
    one("SERVER_VERSION", server.serverVersion),
    one("RUDDER_NODE_KIND", node.kind),
    many("ALLOWED_NETWORKS", node.isPolicyServer ? node.allowedNetworks : []),
  ]);
  if (node.isPolicyServer && node.allowedNetworks.length === 0)
    problems.push({
      level: "warning",
      message: `No allowed networks found for policy server '${node.id}'; Nodes won't be able to connect to it to get their policies.`,
    });

  // The run schedule: fixed for policy servers, the global one (splayed by node id) otherwise.
  let run: { interval: number; splay: number; start: number; schedule: string };
  if (node.isPolicyServer) {
    const root = node.id === "root";
    const mins = Array.from(
      { length: 12 },
      (_, i) => `"Min${String(i * 5 + (root ? 0 : 1)).padStart(2, "0")}"`,
    );
    run = { interval: 5, splay: root ? 0 : 2, start: (root ? 0 : 1) * 60, schedule: ` ${mins.join(", ")} ` };
  } else {
    const computed = computeSchedule(s.firstRunHour, s.firstRunMinute, s.runFrequency);
    if (typeof computed === "string") {
      problems.push({
        level: "error",
        message: `Could not compute the run schedule for node ${node.id}: ${computed}`,
      });
      run = { interval: s.runFrequency, splay: s.splayTime, start: 0, schedule: "" };
    } else {
      run = {
        interval: s.runFrequency,
        splay: s.splayTime,
        start: computed.start * 60 + computeSplayTime(node.id, s.runFrequency, s.splayTime),
        schedule: computed.schedule,
      };
    }
  }
  const heartbeat = node.isPolicyServer || s.complianceMode !== "changes-only" ? 1 : s.heartbeatPeriod;
  vars.set(...one("AGENT_RUN_INTERVAL", String(run.interval)));
  vars.set(...one("AGENT_RUN_SPLAYTIME", String(run.splay)));
  vars.set(...one("AGENT_RUN_SCHEDULE", run.schedule));
  vars.set(...one("RUDDER_HEARTBEAT_INTERVAL", String(run.interval * heartbeat - 1)));
  vars.set(...one("RUDDER_REPORT_MODE", s.complianceMode));
  vars.set(...one("AGENT_RUN_STARTTIME", formatTime(run.start)));

  if (node.isPolicyServer) {
    const hashes = new Map<Node, KeyHashes | undefined>();
    const hashOf = (n: Node) => {
      if (!hashes.has(n)) hashes.set(n, keyHashes(n.agent.certificate));
      return hashes.get(n);
    };
    const all = [...config.nodes.values()];
    const childrenOf = (id: string) =>
      all.filter((n) => n.policyServerId === id).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const children = childrenOf(node.id);
    const cfe = children.filter((n) => n.agent.type === "cfengine-community");
    const withKey = cfe.filter((n) => hashOf(n) !== undefined);
    vars.set(
      ...many(
        "MANAGED_NODES_NAME",
        withKey.map((n) => n.hostname),
      ),
    );
    vars.set(
      ...many(
        "MANAGED_NODES_ID",
        withKey.map((n) => n.id),
      ),
    );
    vars.set(
      ...many(
        "MANAGED_NODES_KEY",
        withKey.map((n) => hashOf(n)?.cfengine ?? ""),
      ),
    );
    vars.set(...many("MANAGED_NODES_ADMIN", [...new Set(withKey.map((n) => n.agent.user))].sort()));
    const ips = withKey.flatMap((n) =>
      Array.isArray(n.facts.ipHostNumber) ? n.facts.ipHostNumber.map(String) : [],
    );
    vars.set(...many("MANAGED_NODES_IP", [...new Set(ips)].sort()));
    const allChildren: Node[] = [];
    const addWithSub = (nodes: readonly Node[]) => {
      for (const n of nodes) {
        allChildren.push(n);
        if (n.id !== node.id) addWithSub(childrenOf(n.id));
      }
    };
    addWithSub(children);
    const sub = allChildren.filter((n) => hashOf(n) !== undefined);
    vars.set(
      ...many(
        "SUB_NODES_NAME",
        sub.map((n) => n.hostname),
      ),
    );
    vars.set(
      ...many(
        "SUB_NODES_ID",
        sub.map((n) => n.id),
      ),
    );
    vars.set(
      ...many(
        "SUB_NODES_SERVER",
        sub.map((n) => n.policyServerId),
      ),
    );
    vars.set(
      ...many(
        "SUB_NODES_KEYHASH",
        sub.map((n) => `sha256//${hashOf(n)?.sha256}`),
      ),
    );
    const certs = children
      .filter((n) => n.agent.type !== "cfengine-community" && n.agent.certificate)
      .map((n) => {
        let subject = "";
        try {
          subject = new X509Certificate(n.agent.certificate as string).subject;
        } catch {}
        return { n, subject };
      });
    vars.set(
      ...many(
        "MANAGED_NODES_CERT_PEM",
        certs.map((c) => c.n.agent.certificate as string),
      ),
    );
    vars.set(
      ...many(
        "MANAGED_NODES_CERT_DN",
        certs.map((c) => c.subject.split("\n").reverse().join(",")),
      ),
    );
    vars.set(
      ...many(
        "MANAGED_NODES_CERT_CN",
        certs.map((c) => /^CN=(.*)$/m.exec(c.subject)?.[1] ?? ""),
      ),
    );
    vars.set(
      ...many(
        "MANAGED_NODES_CERT_UUID",
        certs.map((c) => c.n.id),
      ),
    );
    const onlyRoot = "This variable is only defined on root server";
    const db = /^jdbc:postgresql:\/\/(.*)$/.exec(server.reportsDbUri);
    const rootVars = node.id === "root";
    vars.set(
      ...one("RUDDER_REPORTS_DB_NAME", rootVars ? (server.reportsDbUri.split("/").pop() ?? "") : onlyRoot),
    );
    vars.set(
      ...one(
        "RUDDER_REPORTS_DB_URL",
        rootVars ? (db ? `postgresql://${server.reportsDbUser}@${db[1]}` : server.reportsDbUri) : onlyRoot,
      ),
    );
    vars.set(...one("RUDDER_REPORTS_DB_PASSWORD", rootVars ? server.reportsDbPassword : onlyRoot));
  }

  const policyServer = config.nodes.get(node.policyServerId);
  const serverKeys = keyHashes(policyServer?.agent.certificate);
  if (!policyServer)
    problems.push({
      level: "error",
      message: `node '${node.id}': its policy server '${node.policyServerId}' is not in nodes/`,
    });
  vars.set(...one("POLICY_SERVER_KEY", serverKeys?.cfengine ?? ""));
  vars.set(...one("POLICY_SERVER_KEY_HASH", `sha256//${serverKeys?.sha256 ?? ""}`));
  const groups = groupStrings(nodeTargets(config, node));
  vars.set(...one("RUDDER_NODE_GROUPS_VARS", groups.vars));
  vars.set(...one("RUDDER_NODE_GROUPS_CLASSES", groups.classes));
  vars.set(...one("RUDDER_INVENTORY_VARS", inventoryVars(node)));
  // Agents before 6.0 (Windows: 6.1) report by syslog only, which Rudder no longer takes (but for root).
  const syslogOnly = (
    node.agent.type === "dsc" ? ["2.", "3.", "4.", "5.", "6.0."] : ["2.", "3.", "4.", "5."]
  ).some((v) => node.agent.version.startsWith(v));
  if (syslogOnly && node.id !== "root")
    problems.push({
      level: "error",
      message: `Node ${node.hostname} (${node.id}) has an agent which doesn't support sending compliance reports in HTTPS: ${
        node.agent.type === "dsc"
          ? "Rudder agent on Windows only support HTTPS reporting for version >= 6.1"
          : "Rudder agent only support HTTPS reporting for version >= 6.0"
      }. You need to either disable that node (in node details > settings > Node State) or update agent version on that node.`,
    });
  vars.set(...one("REPORTING_PROTOCOL", "HTTPS"));

  // PrepareTemplateVariables' own.
  const mode: PolicyMode = computeMode(global, node.policyMode, []) ?? "enforce";
  vars.set("COMMUNITY", {
    values: node.agent.type === "cfengine-community" ? ["true"] : [],
    multivalued: false,
  });
  vars.set(...one("AGENT_TYPE", node.agent.type));
  vars.set(...one("RUDDER_NODE_CONFIG_ID", nodeConfigId));
  vars.set(...one("RUDDER_COMPLIANCE_MODE", mode));
  vars.set(...one("RUDDER_VERIFY_CERTIFICATES", "false"));
  return vars;
}

/** System variables rudder.json leaves out (PolicyWriterServiceImpl.systemVariableToJson). */
const NOT_IN_JSON = new Set([
  "SUB_NODES_ID",
  "SUB_NODES_KEYHASH",
  "SUB_NODES_NAME",
  "SUB_NODES_SERVER",
  "MANAGED_NODES_CERT_UUID",
  "MANAGED_NODES_CERT_CN",
  "MANAGED_NODES_CERT_DN",
  "MANAGED_NODES_CERT_PEM",
  "MANAGED_NODES_ADMIN",
  "MANAGED_NODES_ID",
  "MANAGED_NODES_IP",
  "MANAGED_NODES_KEY",
  "MANAGED_NODES_NAME",
  "COMMUNITY",
  "RUDDER_INVENTORY_VARS",
  "BUNDLELIST",
  "INPUTLIST",
]);

/** rudder.json: the system variables by name, a list for multivalued ones (and the directives' inputs). */
export function systemVariablesJson(vars: SystemVariables): string {
  const out: Record<string, unknown> = {};
  for (const name of [...vars.keys()].sort()) {
    if (NOT_IN_JSON.has(name)) continue;
    const v = vars.get(name) as SystemVariable;
    out[name] = v.multivalued || name === "RUDDER_DIRECTIVES_INPUTS" ? [...v.values] : (v.values[0] ?? "");
  }
  return `${liftJson(out)}\n`;
}
