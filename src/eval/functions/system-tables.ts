/**
 * Functions over system tables: sysctlvalue, data_sysctlvalues (Linux
 * /proc/sys), packagesmatching and packageupdatesmatching (the software
 * inventory CSV files cf-agent keeps in its state directory), findprocesses
 * and processexists (the `ps` table), network_connections (/proc/net).
 */
import { closeSync, openSync, readFileSync, statSync } from "node:fs";
import {
  formatEntry,
  legacyInventoryPath,
  moduleInventoryPath,
  readInventoryLines,
  readModuleInventory,
} from "../../providers/packages/inventory.js";
import { posix } from "node:path";
import { parseVarRef } from "../var-ref.js";
import { type JsonValue, type Value, data, scalar } from "../values.js";
import { classResult, compileRegex, fullMatch, text } from "./args.js";
import { clearProcessTable, keptProcessTable } from "../process-table.js";
import type { ProcessTableLog } from "../../providers/processes/index.js";
import { type SelectedProcess, selectProcesses } from "../process-select.js";
import { procPath } from "../proc-root.js";
import { globFileList } from "./glob.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";
import { makeDirectoriesSync } from "../../system/make-directories.js";

/** /proc/sys, below CFENGINE_TEST_OVERRIDE_PROCDIR when set (as 3.21's tests relocate it). */
const procSys = () => procPath("sys");
const MAX_SYSCTL = 16 * 1024;

function readSysctl(path: string): string | undefined {
  try {
    if (statSync(path).isDirectory()) return undefined;
    return readFileSync(path).subarray(0, MAX_SYSCTL).toString("utf8").replace(/\n$/, "");
  } catch {
    return undefined;
  }
}

function sysctlValue([key]: readonly Value[]): Value | undefined {
  const name = text(key);
  if (name === undefined || process.platform !== "linux") return undefined;
  const value = readSysctl(`${procSys()}/${name.replaceAll(".", "/")}`);
  return value === undefined ? undefined : scalar(value);
}

function sysctlValues(): Value | undefined {
  if (process.platform !== "linux") return undefined;
  const out: Record<string, JsonValue> = {};
  const root = procSys();
  for (const path of globFileList(`${root}/**/*`)) {
    const value = readSysctl(path);
    if (value !== undefined) out[path.slice(root.length + 1).replaceAll("/", ".")] = value;
  }
  return data(out);
}

/** The fields of one CSV line (double quotes quote, `""` is a quote). */
export function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (ch === "," && !quoted) {
      fields.push(field);
      field = "";
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

function stateDirectory(fc: FunctionContext): string {
  const workdir = fc.ctx.getVariable(parseVarRef("sys.workdir"));
  const root = workdir && workdir.type === "string" ? workdir.value : "/var/lib/cfengine3";
  return posix.join(root, "state");
}

/** 3.21's words (run together as it prints them) for a package_method inventory not written yet. */
function missingInventory(installed: boolean, path: string): string {
  return `Cannot open the ${installed ? "installed" : "available"} packages inventory '${path}' - This is not necessarily an error. Either the inventory policy has not been included, or it has not had time to have an effect yet or you are usingnew package promise and check for legacy promise is made.A future call may still succeed. (fopen: No such file or directory)`;
}

function createEmptyInventory(path: string): void {
  try {
    makeDirectoriesSync(posix.dirname(path));
    closeSync(openSync(path, "wx", 0o600));
  } catch {
    // Not writable, or made meanwhile: the inventory simply stays as it is.
  }
}

/** The `name,version,arch,method` lines of the inventory packagesmatching() reads. */
function inventoryLines(fc: FunctionContext, installed: boolean): string[] | undefined {
  const statedir = stateDirectory(fc);
  const kind = installed ? "installed" : "updates";
  const modules = fc.ctx.packageInventory;
  // Without `package_inventory`, the package_method inventory (v1), as 3.21.
  if (modules.length === 0) {
    const path = legacyInventoryPath(statedir, kind);
    const lines = readInventoryLines(path);
    if (lines === undefined)
      emitFunctionMessage(fc.ctx, "verbose", fc.call.name, missingInventory(installed, path));
    return lines ?? [];
  }
  const resolved = modules.filter((name) => !name.includes("$(") && !name.includes("${"));
  if (resolved.length === 0) return undefined;
  return resolved.flatMap((module) => {
    const entries = readModuleInventory(statedir, kind, module);
    // Opening a missing inventory creates it empty in 3.21 (its database does): the next refresh is not forced.
    if (!entries) createEmptyInventory(moduleInventoryPath(statedir, kind, module));
    return (entries ?? []).map((e) => `${formatEntry(e)},${module}`);
  });
}

/** Packages from the inventory whose `name,version,arch,method` line matches the four regexes. */
function packagesMatching(installed: boolean): BuiltinFunction["evaluate"] {
  return (args, fc) => {
    const parts = args.map(text);
    if (parts.some((p) => p === undefined)) return undefined;
    const pattern = parts.join(",");
    if (!compileRegex(`^${pattern}$`)) return undefined;
    const lines = inventoryLines(fc, installed);
    if (lines === undefined) return undefined;
    const out: JsonValue[] = [];
    for (const raw of lines) {
      const line = raw.replace(/\r$/, "");
      if (line === "" || !fullMatch(pattern, line)) continue;
      const fields = parseCsvLine(line);
      if (fields.length !== 4) continue;
      const [name, version, arch, method] = fields;
      out.push({ name, version, arch, method });
    }
    return data(out);
  };
}

/**
 * The processes whose command the regex is found in, last line first as
 * 3.21 lists them. As 3.21, the functions use the table the agent keeps
 * while a bundle runs if there is one, and drop it after.
 */
function matchingProcesses(fc: FunctionContext, pattern: string | undefined): SelectedProcess[] | undefined {
  const log: ProcessTableLog = (level, message) => emitFunctionMessage(fc.ctx, level, fc.call.name, message);
  const table = pattern === undefined ? undefined : keptProcessTable(log);
  clearProcessTable();
  if (pattern === undefined || !table) {
    emitFunctionMessage(
      fc.ctx,
      "error",
      fc.call.name,
      `${fc.call.name}: could not load the process table?!?!`,
    );
    return undefined;
  }
  return selectProcesses(table, pattern, undefined, log);
}

const TCP_STATES = [
  "UNKNOWN",
  "ESTABLISHED",
  "SYN_SENT",
  "SYN_RECV",
  "FIN_WAIT1",
  "FIN_WAIT2",
  "TIME_WAIT",
  "CLOSE",
  "CLOSE_WAIT",
  "LAST_ACK",
  "LISTEN",
  "CLOSING",
];

function decodeAddress(hex: string): { address: string; port: string } {
  const [addr, port] = hex.split(":");
  // An IPv4 address is one little-endian word. 3.21 reads an IPv6 one as
  // eight groups of four digits as written, without swapping the words'
  // bytes (so ::1 shows as 0:0:0:0:0:0:100:0).
  const address =
    addr.length === 8
      ? (addr.match(/../g) ?? [])
          .reverse()
          .map((b) => Number.parseInt(b, 16))
          .join(".")
      : (addr.match(/.{4}/g) ?? []).map((g) => Number.parseInt(g, 16).toString(16)).join(":");
  return { address, port: String(Number.parseInt(port, 16)) };
}

function connections(kind: string): JsonValue[] {
  let content: string;
  try {
    content = readFileSync(procPath(`net/${kind}`), "utf8");
  } catch {
    return [];
  }
  return content
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((line) => {
      const [, local, remote, state] = line.trim().split(/\s+/);
      // 3.21 reads the hex state as a decimal number, so LISTEN (0A) shows as UNKNOWN.
      const index = Number.parseInt(state, 10);
      return {
        local: decodeAddress(local),
        remote: decodeAddress(remote),
        state: TCP_STATES[index] ?? "UNKNOWN",
      };
    });
}

export const systemTableFunctions: readonly BuiltinFunction[] = [
  defineFunction("sysctlvalue", 1, 1, sysctlValue),
  defineFunction("data_sysctlvalues", 0, 0, sysctlValues),
  defineFunction("packagesmatching", 4, 4, packagesMatching(true)),
  defineFunction("packageupdatesmatching", 4, 4, packagesMatching(false)),
  defineFunction("findprocesses", 1, 1, ([pattern], fc) => {
    const found = matchingProcesses(fc, text(pattern));
    return found && data(found.map((p) => ({ line: p.line, pid: p.pid })));
  }),
  defineFunction("processexists", 1, 1, ([pattern], fc) => {
    const found = matchingProcesses(fc, text(pattern));
    return found && classResult(found.length > 0);
  }),
  defineFunction("network_connections", 0, 0, () =>
    data({
      tcp: connections("tcp"),
      tcp6: connections("tcp6"),
      udp: connections("udp"),
      udp6: connections("udp6"),
    }),
  ),
];
