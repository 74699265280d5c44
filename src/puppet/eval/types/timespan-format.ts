/**
 * Timespan formats as Puppet defines them: `%D %H %M %S %L %N` with `-`
 * (no padding), `_` (space padding), `0` and a width; the most significant
 * unit of a format holds the total (`%H:%M` of 26 hours is `26:00`), and
 * fractions drop trailing zeros unless zero-padded. Used both to format and
 * to parse.
 */
import { TypeSystemError } from "./base.js";

const NS = {
  D: 86_400_000_000_000n,
  H: 3_600_000_000_000n,
  M: 60_000_000_000n,
  S: 1_000_000_000n,
  L: 1_000_000n,
  N: 1n,
};
const ORDER = ["N", "L", "S", "M", "H", "D"] as const;
type Unit = (typeof ORDER)[number];

interface LiteralSeg {
  literal: string;
}
interface ValueSeg {
  unit: Unit;
  pad: string | undefined; // undefined: no padding ('-'), ' ' or '0'
  width?: number;
  defaultWidth: number;
  useTotal: boolean;
}
type Segment = LiteralSeg | ValueSeg;

const cache = new Map<string, Segment[]>();

function badSpecifier(format: string, start: number, position: number): never {
  throw new TypeSystemError(
    `Bad format specifier '${format.slice(start, position)}' in '${format}', at position ${position}`,
  );
}

export function parseTimespanFormat(format: string): Segment[] {
  const hit = cache.get(format);
  if (hit) return hit;
  const segs: Segment[] = [];
  let highest = -1;
  let state = 0; // 0 literal, 1 pad, 2 width
  let pad: string | undefined = "0";
  let width: number | undefined;
  let fstart = 0;
  const cps = [...format];
  const lit = (c: string): void => {
    const last = segs[segs.length - 1];
    if (last && "literal" in last) last.literal += c;
    else segs.push({ literal: c });
  };
  cps.forEach((c, position) => {
    if (state === 0) {
      if (c === "%") {
        state = 1;
        fstart = position;
        pad = "0";
        width = undefined;
      } else lit(c);
      return;
    }
    const unit = "DHMSLN".includes(c) ? (c as Unit) : undefined;
    if (c === "%") {
      lit(c);
      state = 0;
    } else if (c === "-") {
      if (state !== 1) badSpecifier(format, fstart, position);
      pad = undefined;
      state = 2;
    } else if (c === "_") {
      if (state !== 1) badSpecifier(format, fstart, position);
      pad = " ";
      state = 2;
    } else if (unit) {
      const ord = ORDER.indexOf(unit);
      if (ord > highest) highest = ord;
      const dw = unit === "D" ? 1 : unit === "L" ? 3 : unit === "N" ? 9 : 2;
      segs.push({ unit, pad, width, defaultWidth: dw, useTotal: false });
      state = 0;
    } else {
      if (!/[0-9]/.test(c)) badSpecifier(format, fstart, position);
      if (state === 1 && c === "0") pad = "0";
      else width = (width ?? 0) * 10 + Number(c);
      state = 2;
    }
  });
  if (state !== 0) badSpecifier(format, fstart, cps.length);
  if (highest >= 0) {
    const u = ORDER[highest] as Unit;
    const s = segs.find((x) => "unit" in x && x.unit === u) as ValueSeg;
    s.useTotal = true;
  }
  cache.set(format, segs);
  return segs;
}

function fmtInt(seg: ValueSeg, n: bigint): string {
  const s = n.toString();
  if (seg.pad === undefined) return s;
  const w = seg.width ?? seg.defaultWidth;
  if (seg.unit === "L" || seg.unit === "N") {
    // Fractions are left-aligned: "%-3d"
    return s.padEnd(w, " ");
  }
  return s.padStart(w, seg.pad);
}

/** `timespan` (nanoseconds) formatted with a Puppet timespan format. */
export function formatTimespanNs(nsecs: bigint, format: string): string {
  const segs = parseTimespanFormat(format);
  const abs = nsecs < 0n ? -nsecs : nsecs;
  let out = nsecs < 0n ? "-" : "";
  for (const seg of segs) {
    if ("literal" in seg) {
      out += seg.literal;
      continue;
    }
    let n: bigint;
    switch (seg.unit) {
      case "D":
        n = abs / NS.D;
        break;
      case "H":
        n = seg.useTotal ? abs / NS.H : (abs / NS.H) % 24n;
        break;
      case "M":
        n = seg.useTotal ? abs / NS.M : (abs / NS.M) % 60n;
        break;
      case "S":
        n = seg.useTotal ? abs / NS.S : (abs / NS.S) % 60n;
        break;
      case "L":
        n = seg.useTotal ? abs / NS.L : (abs / NS.L) % 1000n;
        break;
      default: {
        const w = seg.width ?? seg.defaultWidth;
        n = abs;
        if (w < 9) {
          n /= 10n ** BigInt(9 - w);
          if (!seg.useTotal) n %= 10n ** BigInt(w);
        } else if (!seg.useTotal) n %= NS.S;
      }
    }
    if ((seg.unit === "L" || seg.unit === "N") && !seg.useTotal && seg.pad !== "0") {
      const stripped = n.toString().replace(/^([0-9]+?)0*$/, "$1");
      n = BigInt(stripped);
    }
    out += fmtInt(seg, n);
  }
  return out;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Parses `text` with one timespan format; undefined when it does not match. */
export function parseTimespanNs(text: string, format: string): bigint | undefined {
  const segs = parseTimespanFormat(format);
  let re = "^-?";
  for (const seg of segs) {
    if ("literal" in seg) {
      re += `(${escapeRe(seg.literal)})`;
      continue;
    }
    if (seg.width === undefined) {
      if (seg.pad === " ") re += seg.useTotal ? "\\s*([0-9]+)" : `([0-9\\s]{1,${seg.defaultWidth}})`;
      else re += seg.useTotal ? "([0-9]+)" : `([0-9]{1,${seg.defaultWidth}})`;
    } else if (seg.pad === undefined) re += `([0-9]{1,${seg.width}})`;
    else if (seg.pad === "0") re += `([0-9]{${seg.width}})`;
    else re += `([0-9\\s]{${seg.width}})`;
  }
  re += "$";
  const m = new RegExp(re).exec(text);
  if (!m) return undefined;
  let ns = 0n;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i] as Segment;
    if ("literal" in seg) continue;
    const g = (m[i + 1] as string).trimStart();
    if (!/^[0-9]+$/.test(g)) return undefined;
    if (seg.unit === "L" || seg.unit === "N") {
      if (seg.useTotal)
        throw new TypeSystemError(
          "Format specifiers %L and %N denotes fractions and must be used together with a specifier of higher magnitude",
        );
      const n = BigInt(g);
      const p = 9 - g.length;
      ns += p <= 0 ? n : n * 10n ** BigInt(p);
    } else ns += BigInt(g) * NS[seg.unit];
  }
  return text.startsWith("-") ? -ns : ns;
}

export const TIMESPAN_DEFAULT_FORMATS = [
  "%D-%H:%M:%S.%-N",
  "%H:%M:%S.%-N",
  "%M:%S.%-N",
  "%S.%-N",
  "%D-%H:%M:%S",
  "%H:%M:%S",
  "%D-%H:%M",
  "%S",
];

/** Parses with the given formats (or Puppet's defaults), as Timespan.parse does. */
export function parseTimespanText(text: string, formats?: string | readonly string[]): bigint {
  if (typeof formats === "string") {
    const r = parseTimespanNs(text, formats);
    if (r === undefined) throw new TypeSystemError(`Unable to parse '${text}' using format '${formats}'`);
    return r;
  }
  const list = formats ?? TIMESPAN_DEFAULT_FORMATS;
  for (const f of list) {
    try {
      const r = parseTimespanNs(text, f);
      if (r !== undefined) return r;
    } catch {
      // next format
    }
  }
  throw new TypeSystemError(`Unable to parse '${text}' using any of the formats ${list.join(", ")}`);
}
