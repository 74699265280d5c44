/**
 * `sys.inet`, `sys.inet6` and `sys.interfaces_data`: what 3.21 reads from
 * Linux's /proc/net (routes, IPv6 addresses, interface counters and network
 * statistics), in the shape cf-agent gives them. Each is undefined when its
 * files cannot be read (not Linux, no /proc).
 */
import { readFileSync } from "node:fs";
import { procPath } from "./proc-root.js";
import type { JsonValue } from "./values.js";

type JsonObject = Record<string, JsonValue>;

function readProc(name: string): string | undefined {
  try {
    return readFileSync(procPath(`net/${name}`), "utf8");
  } catch {
    return undefined;
  }
}

function rows(text: string): string[][] {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .map((line) => line.split(/\s+/));
}

/** /proc/net/dev: each interface's receive and transmit counters, as strings. */
export function interfacesData(): JsonObject | undefined {
  const text = readProc("dev");
  if (text === undefined) return undefined;
  const names = ["bytes", "packets", "errors", "drop", "fifo", "frame", "compressed", "multicast"];
  const out: JsonObject = {};
  for (const line of text.split("\n").slice(2)) {
    const colon = line.indexOf(":");
    if (colon === -1) continue;
    const device = line.slice(0, colon).trim();
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/);
    const entry: JsonObject = { device };
    names.forEach((name, i) => {
      entry[`receive_${name}`] = fields[i] ?? "0";
      entry[`transmit_${name}`] = fields[i + 8] ?? "0";
    });
    out[device] = entry;
  }
  return out;
}

/** A little-endian hex IPv4 address of /proc/net/route as dotted quad. */
function ipv4FromHex(hex: string): string {
  const n = Number.parseInt(hex, 16) >>> 0;
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join(".");
}

const RTF_UP = 0x1;
const RTF_GATEWAY = 0x2;
const RTF_HOST = 0x4;

function routeFlags(flags: number, isDefault?: boolean): string[] {
  const out = [flags & RTF_UP ? "up" : "down", flags & RTF_HOST ? "host" : "net"];
  if (isDefault !== undefined) out.push(isDefault ? "default" : "not_default");
  out.push(flags & RTF_GATEWAY ? "gateway" : "local");
  return out;
}

/** "Name: a b c" / "Name: 1 2 3" line pairs (/proc/net/netstat) as objects of strings. */
function pairedStats(text: string): JsonObject {
  const out: JsonObject = {};
  const lines = text.split("\n").filter((l) => l.includes(":"));
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const [section, names] = lines[i].split(/:\s*/);
    const values = lines[i + 1].split(/:\s*/)[1]?.trim().split(/\s+/) ?? [];
    const entry: JsonObject = {};
    names
      .trim()
      .split(/\s+/)
      .forEach((name, j) => {
        entry[name] = values[j] ?? "";
      });
    out[section] = entry;
  }
  return out;
}

/** /proc/net/route and netstat: IPv4 routes, the default gateway and statistics. */
export function inetData(): JsonObject | undefined {
  const text = readProc("route");
  if (text === undefined) return undefined;
  const routes: JsonObject[] = [];
  const out: JsonObject = {};
  for (const f of rows(text).slice(1)) {
    const flags = Number.parseInt(f[3], 16);
    const dest = ipv4FromHex(f[1]);
    const isDefault = dest === "0.0.0.0";
    const active = isDefault && (flags & RTF_UP) !== 0 && out.default_gateway === undefined;
    const route: JsonObject = {
      active_default_gateway: active,
      dest,
      flags: routeFlags(flags, isDefault),
      gateway: ipv4FromHex(f[2]),
      interface: f[0],
      irtt: Number(f[10]),
      mask: ipv4FromHex(f[7]),
      metric: Number(f[6]),
      mtu: Number(f[8]),
      refcnt: Number(f[4]),
      use: Number(f[5]),
      window: Number(f[9]),
    };
    if (active) {
      out.default_gateway = route.gateway;
      out.default_route = route;
    }
    routes.push(route);
  }
  out.routes = routes;
  const netstat = readProc("netstat");
  if (netstat !== undefined) out.stats = pairedStats(netstat);
  return out;
}

/** A 32-hex-digit IPv6 address as 3.21 prints it: eight groups, leading zeros dropped. */
function ipv6FromHex(hex: string): string {
  const groups: string[] = [];
  for (let i = 0; i < 32; i += 4) groups.push(Number.parseInt(hex.slice(i, i + 4), 16).toString(16));
  return groups.join(":");
}

/** A hex field as a signed 32-bit number (ffffffff is -1). */
function signed32(hex: string): number {
  return Number.parseInt(hex, 16) | 0;
}

/**
 * /proc/net/if_inet6, ipv6_route and snmp6. (3.21 prints every route's
 * destination as `0:0:0:0:0:0:0:0` and its source prefix as `00`; so does tend.)
 */
export function inet6Data(): JsonObject | undefined {
  const addressText = readProc("if_inet6");
  const routeText = readProc("ipv6_route");
  if (addressText === undefined || routeText === undefined) return undefined;
  const addresses: JsonObject = {};
  for (const f of rows(addressText)) {
    addresses[f[5]] = {
      address: ipv6FromHex(f[0]),
      device_number: Number.parseInt(f[1], 16),
      interface: f[5],
      prefix_length: Number.parseInt(f[2], 16),
      raw_flags: f[4],
      scope: Number.parseInt(f[3], 16),
    };
  }
  // 3.21's line pattern takes the reference and use counts as decimal digits:
  // a route whose (hexadecimal) counts hold a letter is left out, and the
  // others' counts are read as decimal.
  const decimal = /^\d+$/;
  const routes = rows(routeText)
    .filter((f) => decimal.test(f[6] ?? "") && decimal.test(f[7] ?? ""))
    .map((f) => ({
      dest: "0:0:0:0:0:0:0:0",
      dest_prefix: f[1],
      flags: routeFlags(Number.parseInt(f[8], 16)),
      interface: f[9],
      metric: signed32(f[5]),
      next_hop: ipv6FromHex(f[4]),
      refcnt: Number.parseInt(f[6], 10),
      source_prefix: "00",
      use: Number.parseInt(f[7], 10),
    }));
  const out: JsonObject = { addresses, routes };
  const snmp6 = readProc("snmp6");
  if (snmp6 !== undefined) out.stats = Object.fromEntries(rows(snmp6).map(([k, v]) => [k, Number(v)]));
  return out;
}
