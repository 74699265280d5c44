/**
 * Random (version 4) UUIDs, as crypto.randomUUID makes them, from the
 * kernel's random source: a run that needs one UUID and no other
 * cryptography does not load node:crypto for it (a few milliseconds of
 * every start). Where /dev/urandom cannot be read, node:crypto makes it.
 */
import { randomUUID } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

export function randomUuid(): string {
  const bytes = Buffer.alloc(16);
  // The bundle loads node:crypto only when it is used (bin/tend.js).
  if (!readRandom(bytes)) return randomUUID();
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function readRandom(into: Buffer): boolean {
  try {
    const fd = openSync("/dev/urandom", "r");
    try {
      return readSync(fd, into, 0, into.length, null) === into.length;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
