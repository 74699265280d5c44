/**
 * The one thing tend needs from a source map: where a position of the
 * transpiled code came from in the user's file, to point a diagnostic (a
 * throw, a bad value) at the line the user wrote. Decoded only when an
 * error needs it; mappings are read per generated line, VLQ as the source
 * map v3 format defines it.
 */

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** One mapping: generated column -> original line and column (all 0-based). */
interface Segment {
  readonly column: number;
  readonly line: number;
  readonly sourceColumn: number;
}

/** Decodes the `mappings` of a map with one source (what esbuild's transform writes). */
export function decodeMappings(mappings: string): Segment[][] {
  const lines: Segment[][] = [];
  let line = 0;
  let sourceColumn = 0;
  for (const text of mappings.split(";")) {
    const segments: Segment[] = [];
    let column = 0;
    for (const field of text.split(",")) {
      if (field === "") continue;
      const values = decodeVlq(field);
      column += values[0] ?? 0;
      if (values.length < 4) continue;
      line += values[2] as number;
      sourceColumn += values[3] as number;
      segments.push({ column, line, sourceColumn });
    }
    lines.push(segments);
  }
  return lines;
}

function decodeVlq(field: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const c of field) {
    const digit = DIGIT.get(c) ?? 0;
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}

/**
 * The original 1-based line and column of a generated 1-based position:
 * the last mapping at or before the column on that line (else the line's
 * first), undefined when the line has none.
 */
export function originalPosition(
  lines: readonly (readonly Segment[])[],
  line: number,
  column: number,
): { line: number; column: number } | undefined {
  const segments = lines[line - 1];
  if (!segments || segments.length === 0) return undefined;
  let best = segments[0] as Segment;
  for (const s of segments) if (s.column <= column - 1) best = s;
  return { line: best.line + 1, column: best.sourceColumn + 1 };
}
