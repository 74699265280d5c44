/**
 * Default bodies: a body `bodydefault:<promise type>_<attribute>` (say
 * `body action files_action` in `namespace => "bodydefault"`) applies to
 * every promise of that type that does not name a body for the attribute,
 * as in 3.21.
 */
import type { EvalContext } from "../eval/context.js";
import { getPromiseType } from "../language/syntax/index.js";
import { type BodyInstance, resolveBody } from "../promises/bodies.js";
import type { PolicyIndex } from "../promises/policy-index.js";

const NAMESPACE = "bodydefault";

/** The default bodies a policy defines, by `<promise type>_<attribute>`; empty for most policies. */
export function defaultBodyNames(index: PolicyIndex): ReadonlySet<string> {
  return new Set(index.bodiesOfNamespace(NAMESPACE).map((b) => `${b.block.type.text}:${b.block.name.text}`));
}

/** Adds to `bodies` the default bodies of the attributes the promise leaves unset. */
export function addDefaultBodies(
  ctx: EvalContext,
  index: PolicyIndex,
  defaults: ReadonlySet<string>,
  bundleType: string,
  promiseType: string,
  bodies: Map<string, BodyInstance>,
  given: (attribute: string) => boolean,
  verbose: (message: string) => void,
): void {
  if (defaults.size === 0) return;
  const syntax = getPromiseType(bundleType, promiseType);
  for (const [attribute, spec] of Object.entries(syntax?.attributes ?? {})) {
    if (spec.type !== "body" || given(attribute)) continue;
    const name = `${promiseType}_${attribute}`;
    if (!defaults.has(`${attribute}:${name}`)) continue;
    const reference = { kind: "symbol", name: `${NAMESPACE}:${name}`, span: [0, 0] } as const;
    const body = resolveBody(ctx, index, attribute, reference, () => {});
    if (!body) continue;
    verbose(`Using the default body: ${name.padStart(60)}`);
    bodies.set(attribute, body);
  }
}
