/**
 * The small part of CFEngine that rudderc writes (vars, classes and methods
 * promises in agent bundles), laid out exactly as rudderc 8.3 lays it out:
 * promises in groups separated by blank lines, promisers padded to the
 * group's longest, attributes in a fixed order, method promisers
 * `index_${local_index}_N`, and every bundle opening with the report index
 * increment and its guard class.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CFEngine references, not templates

export type PromiseType = "vars" | "classes" | "methods";

type AttributeName = "usebundle" | "string" | "int" | "expression" | "slist" | "unless" | "if";

const ATTRIBUTE_ORDER: readonly AttributeName[] = [
  "usebundle",
  "string",
  "int",
  "expression",
  "slist",
  "unless",
  "if",
];
const PROMISE_TYPE_ORDER: readonly PromiseType[] = ["vars", "classes", "methods"];
const LONGEST_ATTRIBUTE = 9;

export interface CfPromise {
  readonly type: PromiseType;
  readonly promiser: string;
  readonly attributes: Partial<Record<AttributeName, string>>;
}

export const quoted = (s: string): string => `"${s}"`;
export const expanded = (s: string): string => `"\${${s}}"`;

/** Escapes text for a double-quoted CFEngine string: backslashes, then double quotes. */
export function cfEscape(s: string): string {
  return s.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

export function stringVar(name: string, value: string): CfPromise {
  return stringRaw(name, quoted(value));
}

export function stringRaw(name: string, value: string): CfPromise {
  return { type: "vars", promiser: name, attributes: { string: value } };
}

export function intVar(name: string, value: string): CfPromise {
  return { type: "vars", promiser: name, attributes: { int: value } };
}

export function slistVar(name: string, values: readonly string[]): CfPromise {
  return { type: "vars", promiser: name, attributes: { slist: `{${values.map(quoted).join(", ")}}` } };
}

export function classExpression(name: string, value: string): CfPromise {
  return { type: "classes", promiser: name, attributes: { expression: quoted(value) } };
}

export function usebundle(bundle: string, parameters: readonly string[]): CfPromise {
  return {
    type: "methods",
    promiser: "placeholder",
    attributes: { usebundle: `${bundle}(${parameters.join(", ")})` },
  };
}

export function ifCondition(p: CfPromise, condition: string): CfPromise {
  return { ...p, attributes: { ...p.attributes, if: quoted(condition) } };
}

export function unlessCondition(p: CfPromise, condition: string): CfPromise {
  return { ...p, attributes: { ...p.attributes, unless: quoted(condition) } };
}

const uniqueId = (index: number): string => `index_\${local_index}_${index}`;

/** One agent bundle: parameters and promise groups by promise type, in insertion order. */
export class CfBundle {
  private readonly groups = new Map<PromiseType, CfPromise[][]>();

  constructor(
    readonly name: string,
    private readonly parameters: readonly string[] = [],
  ) {
    const guard = "rudder_increment_guard";
    this.add([
      unlessCondition(
        intVar("report_data.index", 'int(eval("${report_data.index}+1", "math", "infix"))'),
        guard,
      ),
      unlessCondition(intVar("local_index", "${report_data.index}"), guard),
    ]);
    this.add([classExpression(guard, "any")]);
  }

  /** Adds a group of promises of one type; an empty group adds nothing. */
  add(group: readonly CfPromise[]): this {
    const first = group[0];
    if (!first) return this;
    const groups = this.groups.get(first.type) ?? [];
    groups.push([...group]);
    this.groups.set(first.type, groups);
    return this;
  }

  render(): string {
    const params = this.parameters.length > 0 ? `(${this.parameters.join(", ")})` : "";
    let out = `bundle agent ${this.name}${params} {\n\n`;
    let index = 0;
    for (const type of PROMISE_TYPE_ORDER) {
      const groups = this.groups.get(type);
      if (!groups) continue;
      out += `  ${type}:\n`;
      for (const group of groups) {
        let longest = Math.max(0, ...group.map((p) => p.promiser.length));
        if (type === "methods") longest = Math.max(longest, uniqueId(index).length);
        for (const promise of group) {
          out += `${renderPromise(promise, index, longest + LONGEST_ATTRIBUTE + 3)}\n`;
          if (type === "methods") index++;
        }
        out += "\n";
      }
    }
    return `${out}}`;
  }
}

function renderPromise(p: CfPromise, index: number, padding: number): string {
  const promiser = quoted(p.type === "methods" ? uniqueId(index) : p.promiser);
  const lines: string[] = [];
  for (const name of ATTRIBUTE_ORDER) {
    const value = p.attributes[name];
    if (value === undefined) continue;
    if (lines.length === 0) {
      // rudderc's first attribute name is not padded (its Display ignores the width).
      lines.push(`    ${promiser.padEnd(padding - LONGEST_ATTRIBUTE - 1)} ${name} => ${value}`);
    } else {
      lines.push(`    ${name.padStart(padding)} => ${value}`);
    }
  }
  return lines.length === 0 ? `${promiser};` : `${lines.join(",\n")};`;
}

/** The technique file: `# @name`/`# @version` header, then the bundles. */
export function renderTechniqueFile(name: string, version: string, bundles: readonly CfBundle[]): string {
  let out = `# @name ${name}\n# @version ${version}\n`;
  for (const bundle of bundles) out += `\n${bundle.render()}`;
  return `${out}\n`;
}
