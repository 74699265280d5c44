/**
 * Communication functions: host2ip, ip2host, iprange, isipinsubnet,
 * hostrange, readtcp, selectservers, peers, peerleader, peerleaders, and
 * those that need CFEngine Enterprise, a hub or libcurl (hostsseen,
 * hostswithclass, remotescalar, hubknowledge, remoteclassesmatching,
 * ldap*, url_get), which answer as the community cf-agent 3.21 does.
 */
import { hostname, networkInterfaces } from "node:os";
import { canonify } from "../class-expression.js";
import { parseVarRef } from "../var-ref.js";
import { type Value, isList, list, scalar } from "../values.js";
import { classResult, fullMatch, text } from "./args.js";
import { splitByRegex, stripPatterns } from "./cf-regex.js";
import { cfReadFile } from "./file-read.js";
import { addressInRange, hostInRange, isHostRange } from "./ip-match.js";
import { emitFunctionMessage } from "./messages.js";
import { lookupAddress, lookupName, tcpExchange } from "./net-probe.js";
import { intFromString } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

/** The largest reply readtcp() and selectservers() take. */
const MAX_REPLY = 4095;

function hostNames(fc: FunctionContext): { fq: string; uq: string } {
  const lookup = (name: string) => {
    const value = fc.ctx.getVariable(parseVarRef(`sys.${name}`));
    return value && value.type === "string" ? value.value : undefined;
  };
  const fq = lookup("fqhost") ?? hostname();
  return { fq, uq: lookup("uqhost") ?? fq.split(".")[0] };
}

function replyLimit(raw: string | undefined): number {
  const n = intFromString(raw ?? "");
  return n === undefined || n < 0n || n > BigInt(MAX_REPLY) ? MAX_REPLY : Number(n);
}

/** A reply as 3.21 keeps it: bytes up to the first NUL. */
function replyText(latin1: string): string {
  const bytes = Buffer.from(latin1, "latin1");
  const nul = bytes.indexOf(0);
  return (nul === -1 ? bytes : bytes.subarray(0, nul)).toString("utf8");
}

function readTcp([host, port, send, max]: readonly Value[], fc: FunctionContext): Value | undefined {
  const [answer] = tcpExchange({
    hosts: [text(host) ?? ""],
    port: text(port) ?? "",
    send: text(send) ?? "",
    read: true,
    maxBytes: replyLimit(text(max)),
  });
  if (answer.ok) return scalar(replyText(answer.value));
  emitFunctionMessage(fc.ctx, "info", "readtcp", `Couldn't connect. (${answer.error})`);
  return undefined;
}

/** The hosts of selectservers()'s first argument: a list, or `@(name)` naming one. */
function serverList(fc: FunctionContext, value: Value | undefined): readonly string[] | undefined {
  if (value && isList(value)) return value.value;
  const raw = text(value);
  const match = raw === undefined ? null : /^@[({](.+)[)}]$/.exec(raw);
  const found = match ? fc.ctx.getVariable(parseVarRef(match[1])) : undefined;
  return found && isList(found) ? found.value : undefined;
}

function selectServers(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const hosts = serverList(fc, args[0]);
  const [port, send, regex, max, arrayName] = args.slice(1).map(text);
  if (!hosts || port === undefined || arrayName === undefined) return undefined;
  const answers = tcpExchange({
    hosts,
    port,
    send: send ?? "",
    read: (send ?? "") !== "",
    maxBytes: replyLimit(max),
  });
  let count = 0;
  hosts.forEach((host, i) => {
    const answer = answers[i];
    if (!answer?.ok) return;
    const reply = replyText(answer.value);
    if ((send ?? "") !== "" && (regex ?? "") !== "" && !fullMatch(regex ?? "", reply)) return;
    fc.ctx.setVariable(parseVarRef(`${arrayName}[${count++}]`), scalar(host));
  });
  return scalar(String(count), "int");
}

/** This host's addresses with their (canonified) interface names; 3.21 leaves out `::1`. */
function hostAddresses(): { address: string; iface: string }[] {
  const out: { address: string; iface: string }[] = [];
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.address !== "::1") out.push({ address: a.address, iface: canonify(name) });
    }
  }
  return out;
}

function ipRange([range, ...ifaces]: readonly Value[]): Value | undefined {
  const spec = text(range);
  if (spec === undefined) return undefined;
  const wanted = ifaces.map((i) => canonify(text(i) ?? ""));
  const hit = hostAddresses().some(
    (a) => addressInRange(spec, a.address) && (wanted.length === 0 || wanted.includes(a.iface)),
  );
  return classResult(hit);
}

function isIpInSubnet([range, ...addresses]: readonly Value[]): Value | undefined {
  const spec = text(range);
  if (spec === undefined) return undefined;
  const candidates = addresses.flatMap((a) => (isList(a) ? a.value : [text(a) ?? ""]));
  return classResult(candidates.some((a) => addressInRange(spec, a)));
}

/** The non-empty lines of a peer file, comments removed; undefined if unreadable or the group is too small. */
function peerLines(
  args: readonly Value[],
  fc: FunctionContext,
): { lines: string[]; size: number } | undefined {
  const [file, comment, groupSize] = args.map(text);
  const size = Number(intFromString(groupSize ?? "") ?? -678n);
  if (size < 2) {
    emitFunctionMessage(
      fc.ctx,
      "warning",
      fc.call.name,
      `called with a nonsensical group size of ${size}, failing`,
    );
    return undefined;
  }
  const content = cfReadFile(fc, file ?? "", 100_000);
  if (content === undefined) return undefined;
  const lines = splitByRegex(stripPatterns(content, comment ?? ""), "\n", 100_000, true).filter(
    (l) => l !== "",
  );
  return { lines, size };
}

function peers(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const parsed = peerLines(args, fc);
  if (!parsed) return undefined;
  const { fq, uq } = hostNames(fc);
  for (let start = 0; start < parsed.lines.length; start += parsed.size) {
    const group = parsed.lines.slice(start, start + parsed.size);
    if (group.some((h) => h === fq || h === uq)) return list(group.filter((h) => h !== fq && h !== uq));
  }
  return list([]);
}

function leaders(args: readonly Value[], fc: FunctionContext): string[] | undefined {
  const parsed = peerLines(args, fc);
  if (!parsed) return undefined;
  const { fq, uq } = hostNames(fc);
  return parsed.lines
    .filter((_, i) => i % parsed.size === 0)
    .map((h) => (h === fq || h === uq ? "localhost" : h));
}

function peerLeader(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const parsed = peerLines(args, fc);
  if (!parsed) return undefined;
  const { fq, uq } = hostNames(fc);
  const index = parsed.lines.findIndex((h) => h === fq || h === uq);
  if (index === -1) return undefined;
  const leader = index - (index % parsed.size);
  return scalar(leader === index ? "localhost" : parsed.lines[leader]);
}

/** A function 3.21 community fails with a fixed message. */
function unavailable(name: string, minArgs: number, maxArgs: number, message: string): BuiltinFunction {
  return defineFunction(name, minArgs, maxArgs, (_args, fc) => {
    emitFunctionMessage(fc.ctx, "error", name, message);
    return undefined;
  });
}

const LDAP = "LDAP support only available in CFEngine Enterprise";

export const networkFunctions: readonly BuiltinFunction[] = [
  defineFunction("host2ip", 1, 1, ([name]) => {
    const answer = lookupAddress(text(name) ?? "");
    // An unresolvable name comes back unchanged.
    return scalar(answer.ok ? answer.value : (text(name) ?? ""));
  }),
  defineFunction("ip2host", 1, 1, ([address]) => {
    const answer = lookupName(text(address) ?? "");
    return scalar(answer.ok ? answer.value : (text(address) ?? ""));
  }),
  defineFunction("iprange", 1, Number.POSITIVE_INFINITY, ipRange),
  defineFunction("isipinsubnet", 1, Number.POSITIVE_INFINITY, isIpInSubnet),
  defineFunction("hostrange", 2, 2, ([prefix, range], fc) => {
    const spec = text(range) ?? "";
    if (!isHostRange(spec)) return undefined;
    return classResult(hostInRange(text(prefix) ?? "", spec, hostNames(fc).uq));
  }),
  defineFunction("readtcp", 4, 4, readTcp),
  defineFunction("selectservers", 6, 6, selectServers),
  defineFunction("peers", 3, 3, peers),
  defineFunction("peerleader", 3, 3, peerLeader),
  defineFunction("peerleaders", 3, 3, (args, fc) => {
    const found = leaders(args, fc);
    return found && list(found);
  }),
  // No lastseen database is read here; 3.21 fails the same way without one.
  unavailable("hostsseen", 3, 3, "cannot read the lastseen database"),
  unavailable("hostswithclass", 2, 2, "Host class counting is only available in CFEngine Enterprise"),
  // Community builds answer remote queries with an empty value (and no error).
  defineFunction("remotescalar", 3, 3, () => scalar("")),
  defineFunction("hubknowledge", 1, 1, () => scalar("")),
  defineFunction("remoteclassesmatching", 4, 4, () => classResult(true)),
  unavailable("ldaparray", 6, 6, LDAP),
  unavailable("ldaplist", 6, 6, LDAP),
  unavailable("ldapvalue", 6, 6, LDAP),
  unavailable("regldap", 7, 7, LDAP),
  unavailable("url_get", 2, 2, "url_get: libcurl integration is not compiled into CFEngine, sorry"),
];
