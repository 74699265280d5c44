/**
 * Puppet's file checksums: `{sha256}<hex>` and the other digest types a
 * file resource's `checksum` parameter names. Puppet 7.23's default digest
 * (its `digest_algorithm` setting) is sha256.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

export const CHECKSUM_TYPES = [
  "sha256",
  "sha256lite",
  "md5",
  "md5lite",
  "sha1",
  "sha1lite",
  "sha224",
  "sha384",
  "sha512",
  "mtime",
  "ctime",
  "none",
] as const;
export type ChecksumType = (typeof CHECKSUM_TYPES)[number];

/** Puppet 7.23's `digest_algorithm` default. */
export const DEFAULT_CHECKSUM: ChecksumType = "sha256";

/** Bytes a `lite` checksum reads: the first 512. */
const LITE_BYTES = 512;

export function isChecksumType(value: string): value is ChecksumType {
  return (CHECKSUM_TYPES as readonly string[]).includes(value);
}

function algorithm(type: ChecksumType): string | undefined {
  const base = type.replace(/lite$/, "");
  return base === "mtime" || base === "ctime" || base === "none" ? undefined : base;
}

/** Whether equal digests of this type mean equal bytes (a whole-file digest, not lite or a time). */
export function digestsWholeContent(type: ChecksumType): boolean {
  return algorithm(type) !== undefined && !type.endsWith("lite");
}

/** `{type}hex` of bytes; types without a digest (mtime, ctime, none) give `{none}`. */
export function checksumOf(data: Uint8Array, type: ChecksumType = DEFAULT_CHECKSUM): string {
  const digest = algorithm(type);
  if (!digest) return "{none}";
  const bytes = type.endsWith("lite") ? data.subarray(0, LITE_BYTES) : data;
  return `{${type}}${hexDigest(digest, bytes)}`;
}

type OneShotHash = (algorithm: string, data: Uint8Array, encoding: "hex") => string;

/**
 * Node's one-shot `crypto.hash` (20.12 and later), found when first needed:
 * a namespace import of node:crypto would load the module at start (the
 * bundle copies a namespace's keys), which a run that digests nothing
 * does not need.
 */
let oneShotHash: OneShotHash | null | undefined;

function findOneShotHash(): OneShotHash | null {
  if (oneShotHash === undefined) {
    const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
    const crypto = getBuiltin?.call(process, "node:crypto") as { hash?: OneShotHash } | undefined;
    oneShotHash = typeof crypto?.hash === "function" ? crypto.hash : null;
  }
  return oneShotHash;
}

/** One-shot `crypto.hash` where Node has it (a quarter of createHash's time), else createHash. */
function hexDigest(digest: string, bytes: Uint8Array): string {
  const oneShot = findOneShotHash();
  return oneShot ? oneShot(digest, bytes, "hex") : createHash(digest).update(bytes).digest("hex");
}

/** `{type}hex` of a file's bytes, read in chunks; throws the system error if unreadable. */
export function checksumOfFile(path: string, type: ChecksumType = DEFAULT_CHECKSUM): string {
  const digest = algorithm(type);
  if (!digest) return "{none}";
  const hash = createHash(digest);
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(1 << 16);
    let limit = type.endsWith("lite") ? LITE_BYTES : Number.POSITIVE_INFINITY;
    while (limit > 0) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, limit), null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
      limit -= read;
    }
  } finally {
    closeSync(fd);
  }
  return `{${type}}${hash.digest("hex")}`;
}

/** Whether a text is a checksum as Puppet writes one (`{md5}...`). */
export function isChecksum(value: string): boolean {
  return /^\{(\w+)\}(.+)$/.test(value);
}
