/**
 * What a bootstrapped host knows of its policy server, as 3.21 reads it at
 * startup: `$(sys.workdir)/policy_server.dat` (`host`, `host:port`,
 * `[ipv6]:port`) gives `sys.policy_hub` (the address; a host name is kept
 * as it is, where 3.21 would resolve it), `sys.policy_hub_port` (5308 by
 * default) and `sys.bootstrap_id` (from bootstrap_id.dat); a hub
 * (`$(sys.statedir)/am_policy_hub` exists) also has the classes
 * `am_policy_hub` and `policy_server`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EvalContext } from "./context.js";
import { scalar } from "./values.js";

const DEFAULT_PORT = "5308";

/**
 * `host`, `host:port`, `[ipv6]` or `[ipv6]:port` split as 3.21's
 * ParseHostPort does; an address with several colons and no brackets is
 * an IPv6 address without a port.
 */
export function splitHostPort(text: string): { host: string; port: string | undefined } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) return { host: bracketed[1], port: bracketed[2] };
  const colons = text.split(":").length - 1;
  if (colons === 1) {
    const [host, port] = text.split(":");
    return { host, port: port === "" ? undefined : port };
  }
  return { host: text, port: undefined };
}

function readFirstLine(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").split("\n")[0].trim();
  } catch {
    return undefined;
  }
}

/** The file a bootstrap writes: the policy server as `-B` named it. */
export const POLICY_SERVER_FILE = "policy_server.dat";
/** The file a bootstrap writes: a random identity of this bootstrap (sys.bootstrap_id). */
export const BOOTSTRAP_ID_FILE = "bootstrap_id.dat";
/** The marker a bootstrap to one of this host's own addresses leaves in the state directory. */
export const AM_POLICY_HUB_FILE = "am_policy_hub";

/** The policy server `policy_server.dat` in `workdir` names (its first line, trimmed), if any. */
export function readPolicyServer(workdir: string): string | undefined {
  const server = readFirstLine(join(workdir, POLICY_SERVER_FILE));
  return server === "" ? undefined : server;
}

/** Installs the policy server variables and hub classes, if the host was bootstrapped. */
export function installPolicyServer(ctx: EvalContext, workdir: string, statedir: string): void {
  const server = readPolicyServer(workdir);
  if (!server) return;
  const { host, port } = splitHostPort(server);
  const tags = { tags: ["source=bootstrap"] };
  const sys = (name: string) => ({ ns: null, scope: "sys", name, indices: [] });
  // 3.21 resolves a host name to its address here; tend, which cannot wait
  // for the resolver at this point, keeps the name (connecting resolves it).
  ctx.setVariable(sys("policy_hub"), scalar(host), tags);
  ctx.setVariable(sys("policy_hub_port"), scalar(port ?? DEFAULT_PORT), tags);
  const id = readFirstLine(join(workdir, BOOTSTRAP_ID_FILE));
  if (id) ctx.setVariable(sys("bootstrap_id"), scalar(id), tags);
  if (!existsSync(join(statedir, AM_POLICY_HUB_FILE))) return;
  ctx.defineHardClass("am_policy_hub", ["source=bootstrap", "deprecated", "alias=policy_server"]);
  ctx.defineHardClass("policy_server", ["inventory", "attribute_name=CFEngine roles", "source=bootstrap"]);
}
