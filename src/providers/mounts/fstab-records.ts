/**
 * fstab(5) as records for the parsed-file records provider, read and
 * written as Puppet's mount provider does on Linux: `device name fstype
 * options dump pass`, tab-joined, the optional fields left out when
 * absent, spaces in the device and mount point as `\040`; a line with
 * fewer than the two mandatory fields is kept as text.
 */
import type { RecordFormat } from "../parsed-file/records.js";

export interface FstabRecord {
  readonly device: string;
  /** The mount point. */
  readonly name: string;
  readonly fstype?: string;
  readonly options?: string;
  readonly dump?: string;
  readonly pass?: string;
}

const decode = (s: string): string => s.replaceAll("\\040", " ");
const encode = (s: string): string => s.replaceAll(" ", "\\040");

export const fstabFormat: RecordFormat<FstabRecord> = {
  parse(line) {
    if (/^\s*#/.test(line) || /^\s*$/.test(line)) return undefined;
    const fields = line.trim().split(/\s+/);
    if (fields.length < 2) return undefined;
    const [device = "", name = "", fstype, options, dump, pass] = fields;
    return {
      device: decode(device),
      name: decode(name),
      ...(fstype !== undefined ? { fstype } : {}),
      ...(options !== undefined ? { options } : {}),
      ...(dump !== undefined ? { dump } : {}),
      ...(pass !== undefined ? { pass } : {}),
    };
  },
  render(r) {
    const fields = [encode(r.device), encode(r.name), r.fstype, r.options, r.dump, r.pass];
    return fields.filter((f): f is string => f !== undefined).join("\t");
  },
};
