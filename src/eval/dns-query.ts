/**
 * The dns source of gethostbyname(3), as glibc's stub resolver asks it:
 * res_search's names (resolver.ts's searchNames), each an A query over UDP
 * to each nameserver in turn, `attempts` rounds. No TCP retry, no EDNS,
 * no `rotate`: a truncated answer is read as far as it goes.
 */
import { createSocket } from "node:dgram";
import {
  type DnsAnswer,
  type DnsResult,
  decodeAnswer,
  encodeQuery,
  type HostEntry,
  type ResolverConfig,
  searchNames,
} from "./resolver.js";

export type { DnsResult } from "./resolver.js";

/** How one name fared on all servers: answered, not there (rcode 3 or no data), failed. */
type TryOutcome =
  | { readonly kind: "found"; readonly entry: HostEntry }
  | { readonly kind: "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" };

/**
 * Asks the dns source for `name` as glibc does (res_search, then A
 * queries over UDP to each server in turn, `attempts` rounds), but gives
 * up at `deadline` (a Date.now() value): a try's timeout is cut to what
 * is left, and a try with no time left is a timeout.
 */
export async function queryDns(name: string, config: ResolverConfig, deadline: number): Promise<DnsResult> {
  let failed = false;
  let searchEnded = false;
  for (const candidate of searchNames(name, config)) {
    if (candidate.searched && searchEnded) continue;
    const outcome = await tryName(candidate.name, config, deadline);
    if (outcome.kind === "found") return { status: "success", entry: outcome.entry };
    const lost = outcome.kind === "timeout" || outcome.kind === "refused";
    // A timeout in the search list ends it (not a SERVFAIL), as in glibc.
    if (candidate.searched && lost) searchEnded = true;
    failed ||= lost;
  }
  // glibc's dns source says UNAVAIL when a query timed out or was refused
  // (its errno stays), NOTFOUND otherwise (no such name, no address, SERVFAIL).
  return { status: failed ? "unavail" : "notfound" };
}

/** One name asked of each server in turn, `attempts` rounds. */
async function tryName(name: string, config: ResolverConfig, deadline: number): Promise<TryOutcome> {
  let refused = 0;
  let servfail = false;
  for (let round = 0; round < config.attempts; round++) {
    for (const server of config.servers) {
      const left = deadline - Date.now();
      if (left <= 0) return { kind: servfail ? "servfail" : "timeout" };
      const reply = await ask(name, server, Math.min(config.timeout * 1000, left));
      if (reply === "refused") {
        refused++;
        continue;
      }
      if (reply === "timeout") continue;
      if (reply.entry) return { kind: "found", entry: reply.entry };
      if (reply.rcode === 3) return { kind: "nxdomain" };
      if (reply.rcode === 0) return { kind: "nodata" };
      // SERVFAIL, REFUSED, NOTIMP...: the next server.
      servfail = true;
    }
  }
  if (servfail) return { kind: "servfail" };
  return { kind: refused === config.attempts * config.servers.length ? "refused" : "timeout" };
}

/** One query to one server: its answer, or why none came in `timeoutMs`. */
function ask(
  name: string,
  server: { readonly address: string; readonly port: number },
  timeoutMs: number,
): Promise<DnsAnswer | "timeout" | "refused"> {
  return new Promise((resolve) => {
    const socket = createSocket(server.address.includes(":") ? "udp6" : "udp4");
    const id = Math.floor(Math.random() * 0x10000);
    let done = false;
    const finish = (value: DnsAnswer | "timeout" | "refused") => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.close();
      resolve(value);
    };
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    socket.on("error", (error: NodeJS.ErrnoException) =>
      finish(error.code === "ECONNREFUSED" || error.code === "ENETUNREACH" ? "refused" : "timeout"),
    );
    socket.on("message", (message) => {
      const answer = decodeAnswer(message, id, name);
      if (answer) finish(answer);
    });
    // Connected, so that an ICMP port unreachable comes back as ECONNREFUSED.
    socket.connect(server.port, server.address, () => socket.send(encodeQuery(id, name)));
  });
}
