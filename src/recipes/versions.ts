/**
 * Cookbook versions and Chef's version constraints (`>= 1.0`, `~> 2.1`,
 * `= 1.2.3`), as metadata.json `dependencies` and an environment's
 * `cookbook_versions` write them. Versions are `x.y.z` (x.y accepted).
 */

/** `[major, minor, patch]`, or undefined when `text` is not a version. */
export function parseVersion(text: string): [number, number, number] | undefined {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
}

const OPERATORS = ["~>", ">=", "<=", "=", ">", "<"] as const;

/** Whether `constraint` is one Chef accepts (`>= 0.0.0`, `~> 1.2`, a bare version). */
export function isConstraint(constraint: string): boolean {
  return splitConstraint(constraint) !== undefined;
}

function splitConstraint(constraint: string): { op: string; version: string } | undefined {
  const text = constraint.trim();
  const op = OPERATORS.find((o) => text.startsWith(o)) ?? "=";
  const version = text.slice(OPERATORS.some((o) => text.startsWith(o)) ? op.length : 0).trim();
  return parseVersion(version) ? { op, version } : undefined;
}

/**
 * Whether `version` satisfies `constraint`. `~> 1.2` means >= 1.2 and < 2.0;
 * `~> 1.2.3` means >= 1.2.3 and < 1.3.0 (Chef's pessimistic operator).
 */
export function satisfies(version: string, constraint: string): boolean {
  const v = parseVersion(version);
  const c = splitConstraint(constraint);
  if (!v || !c) return false;
  const w = parseVersion(c.version) as [number, number, number];
  const order = compare(v, w);
  switch (c.op) {
    case "=":
      return order === 0;
    case ">=":
      return order >= 0;
    case ">":
      return order > 0;
    case "<=":
      return order <= 0;
    case "<":
      return order < 0;
    default: {
      const parts = c.version.trim().split(".").length;
      const upper: [number, number, number] = parts === 3 ? [w[0], w[1] + 1, 0] : [w[0] + 1, 0, 0];
      return order >= 0 && compare(v, upper) < 0;
    }
  }
}
