import { readFileSync } from "node:fs";

/**
 * CPU time (user + system, ms) of this process's finished children, from
 * /proc/self/stat; null where there is no /proc. Unlike wall time it does not
 * grow when other work competes for the machine. Linux counts it in ticks of
 * 10 ms: take the difference over many runs.
 */
export function childCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // cutime and cstime are fields 16 and 17; `fields` starts at field 3.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}
