/**
 * Rudder's order of policies (BundleOrder in DataStructures.scala): names
 * compared as Java's String.CASE_INSENSITIVE_ORDER compares them, character
 * by character, "" first, never numerically ("50" sorts after "100");
 * lists compared element by element, the shorter padded with "".
 */

function foldChar(c: string, upper: boolean): number {
  const f = upper ? c.toUpperCase() : c.toLowerCase();
  // Java maps one UTF-16 unit to one; a unit whose case mapping grows (ß) stays itself.
  return f.length === 1 ? f.charCodeAt(0) : c.charCodeAt(0);
}

/** Negative when `a` sorts before `b`, 0 when equal ignoring case, positive after. */
export function compareBundleOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let c1 = a.charCodeAt(i);
    let c2 = b.charCodeAt(i);
    if (c1 === c2) continue;
    const s1 = a.charAt(i);
    const s2 = b.charAt(i);
    c1 = foldChar(s1, true);
    c2 = foldChar(s2, true);
    if (c1 === c2) continue;
    c1 = foldChar(String.fromCharCode(c1), false);
    c2 = foldChar(String.fromCharCode(c2), false);
    if (c1 !== c2) return c1 - c2;
  }
  return a.length - b.length;
}

/** Compares two lists of names element by element ("" pads the shorter). */
export function compareBundleOrderList(a: readonly string[], b: readonly string[]): number {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareBundleOrder(a[i] ?? "", b[i] ?? "");
    if (c !== 0) return c;
  }
  return 0;
}
