/**
 * One iteration of a promise as its type sees it: attributes looked up in
 * the promise and in the bodies it references, expanded with the
 * iteration's bindings on first use.
 */
import type { Attribute, Bundle, Promise as PromiseNode, Rval } from "../language/ast.js";
import type { EvalContext } from "../eval/context.js";
import { type ExpandOptions, expandRval } from "../eval/expand.js";
import type { Value } from "../eval/values.js";
import type { ActivePromise } from "../promises/contract.js";
import { asText } from "../promises/values.js";
import type { BodyInstance } from "../promises/bodies.js";
import type { Located } from "../promises/policy-index.js";

/** A promise with its bodies resolved, shared by all its iterations. */
export interface DerefPromise {
  readonly type: string;
  readonly node: PromiseNode;
  readonly bundle: Located<Bundle>;
  /** Own attributes that are not body references. */
  readonly attributes: ReadonlyMap<string, Attribute>;
  readonly bodies: ReadonlyMap<string, BodyInstance>;
  /** The expression of a quoted class guard (`"$(x)"::`), checked per iteration. */
  readonly varClass?: string;
}

export class ActivePromiseImpl implements ActivePromise {
  private readonly cache = new Map<string, Value | undefined>();

  constructor(
    private readonly ctx: EvalContext,
    readonly deref: DerefPromise,
    readonly promiser: string,
    readonly pass: number,
    readonly handle: string,
    readonly options: ExpandOptions,
    readonly line?: number,
  ) {}

  get type(): string {
    return this.deref.type;
  }
  get node(): PromiseNode {
    return this.deref.node;
  }
  get bundle(): Located<Bundle> {
    return this.deref.bundle;
  }

  raw(name: string): Rval | undefined {
    return this.deref.attributes.get(name)?.value;
  }

  value(name: string): Value | undefined {
    return this.expandCached(name, this.raw(name));
  }

  text(name: string): string | undefined {
    return asText(this.value(name));
  }

  body(name: string): BodyInstance | undefined {
    return this.deref.bodies.get(name);
  }

  bodyValue(body: string, name: string): Value | undefined {
    // Most lookups are of bodies or attributes the promise does not have: no key is built for them.
    const rval = this.deref.bodies.get(body)?.attributes.get(name)?.value;
    return rval ? this.expandCached(`${body}.${name}`, rval) : undefined;
  }

  private expandCached(key: string, rval: Rval | undefined): Value | undefined {
    if (!rval) return undefined;
    const known = this.cache.get(key);
    if (known !== undefined || this.cache.has(key)) return known;
    const value = expandRval(this.ctx, rval, this.options);
    this.cache.set(key, value);
    return value;
  }
}
