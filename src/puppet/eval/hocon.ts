/** HOCON values (src/text/hocon.ts) as Puppet's: null is undef, objects are hashes. */
import type { HoconValue } from "../../text/hocon.js";
import { PHash, type PValue } from "./values.js";

export function hoconToPuppet(v: HoconValue): PValue {
  if (v === null) return undefined;
  if (Array.isArray(v)) return v.map(hoconToPuppet);
  if (v instanceof Map) {
    const h = new PHash();
    for (const [k, x] of v) h.set(k, hoconToPuppet(x));
    return h;
  }
  return v;
}
