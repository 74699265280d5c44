/**
 * Whether and where a node reports: `<workdir>/reporting.json`, or the
 * `--hub HOST[:PORT]` a front end is given. Reporting is off unless one of
 * them is there, so a host without a hub pays one failed stat per run.
 *
 *     { "hub": "hub.example.com:5310",  // default: the policy server
 *       "trustHubKey": false,           // trust an unknown hub key on first use
 *       "maxReports": 1000,             // spool bound (oldest dropped)
 *       "maxAgeDays": 7,                // spool bound (older dropped)
 *       "timeoutSeconds": 10,           // per report sent
 *       "maxSendsPerRun": 100 }
 *
 * Without "hub", the hub is the policy server the host was bootstrapped
 * to (`policy_server.dat`), on the hub's port (5310), not cf-serverd's.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const SETTINGS_FILE = "reporting.json";
export const POLICY_SERVER_FILE = "policy_server.dat";
export const DEFAULT_HUB_PORT = 5310;

export interface HubAddress {
  readonly host: string;
  readonly port: number;
}

export interface ReportingSettings {
  readonly hub: HubAddress;
  readonly trustHubKey: boolean;
  readonly maxReports: number;
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
  readonly maxSendsPerRun: number;
}

const DAY_MS = 86_400_000;

/** `host`, `host:port`, `[v6]` or `[v6]:port` (a bare IPv6 address has no port); an error when it is none. */
export function parseHubAddress(text: string): HubAddress | { error: string } {
  const trimmed = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  let host = trimmed;
  let port: string | undefined;
  if (bracketed) {
    host = bracketed[1] as string;
    port = bracketed[2];
  } else if (trimmed.split(":").length === 2) {
    [host, port] = trimmed.split(":") as [string, string];
  }
  const number = port === undefined || port === "" ? DEFAULT_HUB_PORT : Number(port);
  if (host === "" || /[\s/]/.test(host)) return { error: `'${text}' is not a host name or address` };
  if (!Number.isInteger(number) || number < 1 || number > 65535)
    return { error: `'${text}': the port must be a number from 1 to 65535` };
  return { host, port: number };
}

function firstLine(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").split("\n")[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

function positive(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value === "number" && Number.isFinite(value) && value > 0) return value;
  throw new Error(`"${name}" must be a number above 0`);
}

/**
 * The settings for a node with work directory `workdir`: undefined when
 * reporting is off (no `hubOption`, no settings file); an error message
 * when the file cannot be read or names no usable hub.
 */
export function readReportingSettings(
  workdir: string,
  hubOption?: string,
): ReportingSettings | undefined | { error: string } {
  const file = join(workdir, SETTINGS_FILE);
  let raw: Record<string, unknown> = {};
  let text: string | undefined;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      return { error: `${file}: ${(error as Error).message}` };
  }
  if (text === undefined && hubOption === undefined) return undefined;
  try {
    if (text !== undefined) {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        return { error: `${file}: expected a JSON object` };
      raw = parsed as Record<string, unknown>;
    }
    const named =
      hubOption ?? (typeof raw.hub === "string" ? raw.hub : undefined) ?? policyServerHub(workdir);
    if (named === undefined)
      return { error: `${file}: no "hub" given and the host is not bootstrapped to a policy server` };
    const hub = parseHubAddress(named);
    if ("error" in hub) return { error: `hub: ${hub.error}` };
    return {
      hub,
      trustHubKey: raw.trustHubKey === true,
      maxReports: Math.floor(positive(raw.maxReports, 1000, "maxReports")),
      maxAgeMs: positive(raw.maxAgeDays, 7, "maxAgeDays") * DAY_MS,
      timeoutMs: positive(raw.timeoutSeconds, 10, "timeoutSeconds") * 1000,
      maxSendsPerRun: Math.floor(positive(raw.maxSendsPerRun, 100, "maxSendsPerRun")),
    };
  } catch (error) {
    return { error: `${file}: ${(error as Error).message}` };
  }
}

/** The policy server's host (without cf-serverd's port: the hub listens on its own). */
function policyServerHub(workdir: string): string | undefined {
  const server = firstLine(join(workdir, POLICY_SERVER_FILE));
  if (server === undefined) return undefined;
  const bracketed = /^\[([^\]]+)\]/.exec(server);
  if (bracketed) return `[${bracketed[1]}]`;
  return server.split(":").length === 2
    ? server.split(":")[0]
    : server.includes(":")
      ? `[${server}]`
      : server;
}
