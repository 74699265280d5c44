/**
 * What loading needs from control bodies and from pre-evaluation of a
 * group of files.
 */
import type { Attribute, Body, PolicyFile } from "../language/ast.js";
import { DEFAULT_NAMESPACE, type EvalContext } from "../eval/context.js";
import { expandFinalValue, expandRval } from "../eval/expand.js";
import { type ResolveHooks, isGuardTrue, resolveBundle } from "../eval/resolve.js";
import { isScalar, scalar } from "../eval/values.js";

/** A parsed file and the path its `this.promise_filename` derives from. */
export interface LoadedPolicy {
  readonly path: string;
  readonly policy: PolicyFile;
  /** The line of an offset in the file (for messages); absent, messages give none. */
  readonly lineOf?: (offset: number) => number;
}

/**
 * Pre-evaluates files as 3.21 does after parsing them: common bundles
 * (vars, classes, vars), then the vars of the other bundles, then control
 * bodies. Returns the `ignore_missing_inputs` setting if a common control
 * body set it.
 */
export function resolvePolicies(
  ctx: EvalContext,
  files: readonly LoadedPolicy[],
  hooks: ResolveHooks = {},
): boolean | undefined {
  for (const common of [true, false]) {
    for (const file of files) {
      for (const block of file.policy.blocks) {
        if (block.kind === "bundle" && (block.type.text === "common") === common)
          resolveBundle(ctx, block, file.path, { ...hooks, lineOf: file.lineOf });
      }
    }
  }
  defineControlVariables(ctx, files);
  let ignoreMissing: boolean | undefined;
  for (const file of files) {
    for (const body of controlBodies(file.policy, "common")) {
      const domain = resolveControlAttribute(ctx, body, "domain");
      if (domain !== undefined) setDomain(ctx, domain);
      const value = resolveControlAttribute(ctx, body, "ignore_missing_inputs");
      if (value === "true" || value === "yes" || value === "on") ignoreMissing = true;
      else if (value === "false" || value === "no" || value === "off") ignoreMissing = false;
    }
  }
  return ignoreMissing;
}

/**
 * The values of every control body as variables, as 3.21 resolves them:
 * `control_common.bundlesequence`, `control_agent.ifelapsed`,
 * `control_file.inputs`... Each attribute whose guard holds is expanded in
 * the context as it stands (a reference still undefined stays as written; a
 * function call that fails leaves the variable out); a later body of the
 * same type replaces the values it sets.
 */
function defineControlVariables(ctx: EvalContext, files: readonly LoadedPolicy[]): void {
  for (const file of files) {
    for (const block of file.policy.blocks) {
      if (block.kind !== "body" || block.name.text !== "control") continue;
      const scope = `control_${block.type.text}`;
      ctx.pushFrame(block.namespace, scope);
      try {
        for (const group of block.groups) {
          if (!isGuardTrue(ctx, group.guard)) continue;
          for (const attribute of group.attributes) defineControlVariable(ctx, scope, attribute);
        }
      } finally {
        ctx.popFrame();
      }
    }
  }
}

function defineControlVariable(ctx: EvalContext, scope: string, attribute: Attribute): void {
  const ref = { ns: DEFAULT_NAMESPACE, scope, name: attribute.name.text, indices: [] };
  ctx.removeVariable(ref);
  const value = expandFinalValue(ctx, expandRval(ctx, attribute.value), {});
  if (value && value.type !== "data") ctx.setVariable(ref, value);
}

/** `domain` of body common control replaces the host's: `sys.domain`, `sys.fqhost`, and a hard class. */
function setDomain(ctx: EvalContext, domain: string): void {
  const sys = (name: string) => ({ ns: null, scope: "sys", name, indices: [] });
  const uqhost = ctx.getVariable(sys("uqhost"));
  ctx.setVariable(sys("domain"), scalar(domain));
  ctx.setVariable(sys("fqhost"), scalar(`${uqhost && isScalar(uqhost) ? uqhost.value : ""}.${domain}`));
  ctx.defineHardClass(domain);
}

/** The `body TYPE control` blocks of a file. */
export function controlBodies(policy: PolicyFile, type: string): Body[] {
  return policy.blocks.filter(
    (b): b is Body => b.kind === "body" && b.name.text === "control" && b.type.text === type,
  );
}

/** The first attribute of that name whose class guard holds (3.21's "effective constraint"). */
export function effectiveAttribute(ctx: EvalContext, body: Body, name: string): Attribute | undefined {
  for (const group of body.groups) {
    if (!isGuardTrue(ctx, group.guard)) continue;
    const found = group.attributes.find((a) => a.name.text === name);
    if (found) return found;
  }
  return undefined;
}

function resolveControlAttribute(ctx: EvalContext, body: Body, name: string): string | undefined {
  const attribute = effectiveAttribute(ctx, body, name);
  if (!attribute) return undefined;
  ctx.pushFrame(body.namespace, `control_${body.type.text}`);
  try {
    const value = expandRval(ctx, attribute.value);
    return value && isScalar(value) ? value.value : undefined;
  } finally {
    ctx.popFrame();
  }
}
