/**
 * Which nodes the hub takes reports from, by key, as tend serverd decides
 * (cf-serverd's rules): a key stored in the hub's `ppkeys` as
 * `<user>-MD5=<digest>.pub` is trusted; an unknown key is trusted on first
 * use, and saved as `root-MD5=….pub`, only when the peer's address is in
 * `trustKeysFrom` (addresses and networks: `192.0.2.7`, `10.0.0.0/8`,
 * `::1`, `fd00::/8`); otherwise it is refused.
 */
import type { KeyObject } from "node:crypto";
import { BlockList, isIP } from "node:net";
import { listTrustedKeys, readTrustedKey, sameKey, trustKey } from "../net/keys.js";
import type { Logger } from "../system/logger.js";

/** The user name a first-use key is saved under (HTTPS carries no IDENTITY line). */
export const TRUST_USER = "root";

export type TrustDecision = "trusted" | "trusted-now" | "untrusted";

/** A `trustKeysFrom` list, or the entry that is neither an address nor a network. */
export function parseTrustList(entries: readonly string[]): BlockList | { error: string } {
  const list = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    const [address, bits] = entry.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) return { error: `'${raw}' is not an IP address or network (192.0.2.0/24, fd00::/8)` };
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const prefix = Number(bits);
    if (!/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128))
      return { error: `'${raw}': bad prefix length` };
    list.addSubnet(address, prefix, type);
  }
  return list;
}

export class KeyTrust {
  /** Digests found trusted in this process (a key file is never taken back while the hub runs). */
  private readonly known = new Set<string>();

  constructor(
    private readonly ppkeys: string,
    private readonly trustKeysFrom: BlockList | undefined,
    private readonly logger: Logger,
  ) {}

  decide(key: KeyObject, digest: string, address: string): TrustDecision {
    if (this.known.has(digest)) return "trusted";
    if (this.stored(key, digest)) {
      this.known.add(digest);
      return "trusted";
    }
    const family = isIP(address);
    if (
      !this.trustKeysFrom ||
      family === 0 ||
      !this.trustKeysFrom.check(address, family === 4 ? "ipv4" : "ipv6")
    ) {
      this.logger.notice(`TRUST FAILED, ${address} presented an untrusted key ${digest}; refused`);
      return "untrusted";
    }
    this.logger.notice(`Trusting new key: ${digest} (from ${address}, in trustkeysfrom)`);
    trustKey(this.ppkeys, TRUST_USER, key);
    this.known.add(digest);
    return "trusted-now";
  }

  private stored(key: KeyObject, digest: string): boolean {
    const direct = readTrustedKey(this.ppkeys, TRUST_USER, digest);
    if (direct) return sameKey(direct, key);
    for (const entry of listTrustedKeys(this.ppkeys)) {
      if (entry.id !== digest) continue;
      const stored = readTrustedKey(this.ppkeys, entry.user, digest);
      if (stored && sameKey(stored, key)) return true;
    }
    return false;
  }
}
