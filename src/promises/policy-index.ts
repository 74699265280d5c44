/**
 * Lookup of bundles, bodies and custom promise types across a policy set,
 * with 3.21's namespace rules: a qualified name `ns:name` is looked up in
 * its namespace; an unqualified one in the caller's namespace, then in
 * `default`.
 */
import type { Body, Bundle, CustomPromiseBlock } from "../language/ast.js";
import type { PolicySet } from "../language/policy-set.js";

export interface Located<T> {
  readonly block: T;
  /** The file the block was written in. */
  readonly file: string;
}

export class PolicyIndex {
  private readonly bundles = new Map<string, Located<Bundle>[]>();
  private readonly bodies = new Map<string, Located<Body>>();
  private readonly promiseTypes = new Map<string, Located<CustomPromiseBlock>>();
  readonly controlBodies: Located<Body>[] = [];

  /**
   * `entry` is the file the run started from: its `bundle agent __main__`
   * is the `main` bundle; `__main__` bundles of other files are ignored.
   */
  constructor(set: PolicySet, entry?: string) {
    for (const { policy, source } of set.files) {
      for (const block of policy.blocks) {
        const located = { block, file: source.path };
        if (block.kind === "bundle" && block.name.text === "__main__") {
          if (source.path === entry) this.addBundle({ block: renamed(block, "main"), file: source.path });
          continue;
        }
        if (block.kind === "bundle") this.addBundle(located as Located<Bundle>);
        else if (block.kind === "promise-block")
          this.promiseTypes.set(block.name.text, located as Located<CustomPromiseBlock>);
        else if (block.name.text === "control") this.controlBodies.push(located as Located<Body>);
        else
          this.bodies.set(
            `${block.namespace}:${block.type.text}:${block.name.text}`,
            located as Located<Body>,
          );
      }
    }
  }

  private addBundle(located: Located<Bundle>): void {
    const key = `${located.block.namespace}:${located.block.name.text}`;
    const list = this.bundles.get(key) ?? [];
    list.push(located);
    this.bundles.set(key, list);
  }

  /** A bundle by name; `types` restricts the bundle types accepted, in preference order. */
  findBundle(name: string, currentNs: string, types: readonly string[]): Located<Bundle> | undefined {
    for (const key of candidateKeys(name, currentNs)) {
      const found = this.bundles.get(key);
      if (!found) continue;
      for (const type of types) {
        const match = found.find((b) => b.block.type.text === type);
        if (match) return match;
      }
    }
    return undefined;
  }

  findBody(type: string, name: string, currentNs: string): Located<Body> | undefined {
    for (const key of candidateKeys(name, currentNs)) {
      const colon = key.indexOf(":");
      const found = this.bodies.get(`${key.slice(0, colon)}:${type}:${key.slice(colon + 1)}`);
      if (found) return found;
    }
    return undefined;
  }

  /** The bodies of a namespace (`bodydefault` holds default bodies). */
  bodiesOfNamespace(ns: string): Located<Body>[] {
    return [...this.bodies.values()].filter((b) => b.block.namespace === ns);
  }

  findPromiseType(name: string): Located<CustomPromiseBlock> | undefined {
    return this.promiseTypes.get(name);
  }

  /** Every `promise agent NAME` declaration (the last one of a name wins). */
  promiseTypeDeclarations(): Located<CustomPromiseBlock>[] {
    return [...this.promiseTypes.values()];
  }

  controlBodiesOf(type: string): Located<Body>[] {
    return this.controlBodies.filter((b) => b.block.type.text === type);
  }

  *allBundles(): Generator<Located<Bundle>> {
    for (const list of this.bundles.values()) yield* list;
  }
}

function candidateKeys(name: string, currentNs: string): string[] {
  const colon = name.indexOf(":");
  if (colon > 0) return [name];
  return currentNs === "default" ? [`default:${name}`] : [`${currentNs}:${name}`, `default:${name}`];
}

function renamed(bundle: Bundle, name: string): Bundle {
  return { ...bundle, name: { ...bundle.name, text: name } };
}
