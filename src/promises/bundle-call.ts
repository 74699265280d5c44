/**
 * A bundle named by an attribute (`usebundle => b(args)`, `edit_line =>
 * b(args)`): its name and its arguments, expanded in the caller. `@(list)`
 * arguments stay lists.
 */
import type { Rval } from "../language/ast.js";
import { expandRval } from "../eval/expand.js";
import type { Value } from "../eval/values.js";
import { formatArguments, quoteArgument, rvalText } from "./ornaments.js";
import type { ActivePromise, PromiseEnvironment } from "./contract.js";
import { asText } from "./values.js";

export interface BundleCall {
  readonly name: string;
  readonly args: readonly Value[];
  /** The arguments as cf-agent's verbose banners show them (` {"a","@(l)"}`); undefined without any. */
  readonly argsText?: string;
  /** Per argument: "s" for a string, "f" for a function call. */
  readonly argKinds?: readonly string[];
}

/** The call an attribute makes; undefined when absent or not yet resolvable. */
export function bundleCallOf(
  promise: ActivePromise,
  env: PromiseEnvironment,
  attribute: string,
): BundleCall | undefined {
  const ref = promise.raw(attribute);
  if (!ref) return undefined;
  if (ref.kind !== "call") {
    const name = asText(promise.value(attribute));
    return name === undefined ? undefined : { name, args: [] };
  }
  return bundleCallOfRval(ref, promise, env);
}

/** The call a reference makes (an attribute of a body, arguments substituted); undefined when not yet resolvable. */
export function bundleCallOfRval(
  ref: Rval,
  promise: ActivePromise,
  env: PromiseEnvironment,
): BundleCall | undefined {
  if (ref.kind !== "call") {
    const name = asText(expandRval(env.ctx, ref, promise.options));
    return name === undefined ? undefined : { name, args: [] };
  }
  const nameValue = { kind: "string", value: ref.name, quote: '"', span: ref.nameSpan } as const;
  const name = asText(expandRval(env.ctx, nameValue, promise.options));
  const args: Value[] = [];
  const shown: string[] = [];
  for (const arg of ref.args) {
    const value = expandRval(env.ctx, arg, promise.options);
    if (!value) return undefined;
    args.push(value);
    const written = arg.kind === "string" ? arg.value : arg.kind === "nakedvar" ? arg.text : undefined;
    // 3.21 shows a function call as written, not its value.
    shown.push(arg.kind === "call" ? rvalText(arg) : quoteArgument(value, written));
  }
  if (name === undefined) return undefined;
  const argKinds = ref.args.map((arg) => (arg.kind === "call" ? "f" : "s"));
  return { name, args, argsText: shown.length > 0 ? formatArguments(shown) : undefined, argKinds };
}
