/**
 * 3.21's address-range matching (`FuzzySetMatch`, `FuzzyHostMatch`) for
 * iprange(), isipinsubnet() and hostrange(): CIDR (`10.0.0.0/8`), octet
 * ranges (`10.0.0.1-20`), and prefixes (`10.0` matches `10.0.x.y`, not
 * `10.01...`), with the same leniencies.
 */
import { isIPv4, isIPv6 } from "node:net";
import { expandIpv6 } from "./math.js";

/** `sscanf("%ld")`: a leading decimal number, or undefined. */
function scanLong(text: string): number | undefined {
  const match = /^\s*([+-]?\d+)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

function ipv4Number(address: string): number {
  // inet_pton leaves an invalid address as zeros here.
  if (!isIPv4(address)) return 0;
  return address.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

function matchIpv4Cidr(range: string, address: string): boolean {
  const match = /^([^/]{0,16})\/(\d+)/.exec(range);
  const mask = match ? Number(match[2]) : Number.NaN;
  if (!match || mask > 32) return false;
  if (mask === 0) return true;
  const shift = 2 ** (32 - mask);
  return Math.floor(ipv4Number(match[1]) / shift) === Math.floor(ipv4Number(address) / shift);
}

function matchIpv4Octets(range: string, address: string): boolean {
  const parts = range.split(".");
  const values = address.split(".");
  for (let i = 0; i < 4 && i < parts.length && parts[i] !== ""; i++) {
    const part = parts[i];
    const value = scanLong(values[i] ?? "") ?? -1;
    if (part.includes("-")) {
      const [from, to] = part.split("-").map((p) => scanLong(p) ?? -1);
      if (from < 0 || to < 0 || from > value || value > to) return false;
    } else if ((scanLong(part) ?? -1) !== value) return false;
  }
  return true;
}

function matchIpv6Cidr(range: string, address: string): boolean {
  const match = /^([^/]{0,40})\/(\d+)/.exec(range);
  const mask = match ? Number(match[2]) : Number.NaN;
  if (!match || mask > 128 || mask % 8 !== 0) return false;
  const a = isIPv6(match[1]) ? expandIpv6(match[1]) : Array(16).fill(0);
  const b = isIPv6(address) ? expandIpv6(address) : Array(16).fill(0);
  return a.slice(0, mask / 8).every((byte, i) => byte === b[i]);
}

function matchIpv6Groups(range: string, address: string): boolean {
  const parts = range.split(":");
  const values = address.split(":");
  for (let i = 0; i < 8; i++) {
    const part = parts[i] ?? "";
    if (part.includes("-")) {
      const [from, to] = part.split("-").map((p) => Number.parseInt(p, 16));
      const value = Number.parseInt(values[i] ?? "", 16);
      if (!(from >= 0 && to >= 0) || from >= value || value > to) return false;
    } else if (scanLong(part) !== scanLong(values[i] ?? "")) return false;
  }
  return true;
}

/** Whether `address` is in `range`; a malformed range matches nothing. */
export function addressInRange(range: string, address: string): boolean {
  if (range === address) return true;
  const cidr = range.includes("/");
  const dashed = range.includes("-");
  const v4 = range.includes(".") || address.includes(".");
  const v6 = range.includes(":") || address.includes(":");
  if ((v4 && v6) || (cidr && dashed) || !(v4 || v6)) return false;
  if (!cidr && !dashed) {
    // A prefix must end at an octet boundary: 10.1 matches 10.1.2.3, not 10.12.3.4.
    if (address.length > range.length && address[range.length] !== ".") return false;
    return address.startsWith(range);
  }
  if (v4) return cidr ? matchIpv4Cidr(range, address) : matchIpv4Octets(range, address);
  return cidr ? matchIpv6Cidr(range, address) : matchIpv6Groups(range, address);
}

/** `hostrange()`'s syntax check: the range must read as `X-Y`. */
export function isHostRange(range: string): boolean {
  return /^\s*[+-]?\d+-[+-]?\d+/.test(range);
}

/** Whether `host` is `prefix` followed by a number within `range` (`X-Y`), ignoring case. */
export function hostInRange(prefix: string, range: string, host: string): boolean {
  const digits = /\d*$/.exec(host)?.[0] ?? "";
  const base = host.slice(0, host.length - digits.length);
  if (digits === "" || base === "") return false;
  const number = Number(digits);
  const [start, end] = range.split("-").map((p) => scanLong(p) ?? -1);
  if (number < start || number > end) return false;
  return base.toLowerCase() === prefix.toLowerCase();
}
