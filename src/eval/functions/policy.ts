/**
 * Functions that look at the policy itself: `bundlesmatching(regex, tag...)`
 * lists the bundles whose qualified name (`ns:name`) matches and whose
 * `meta` tags match, as 3.21 does it (quirks included).
 */
import type { EvalContext, PolicyBundleInfo } from "../context.js";
import { matchesFully } from "../regex/match.js";
import { PcreError } from "../regex/pcre.js";
import { isList, list } from "../values.js";
import { text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, defineFunction } from "./types.js";

/**
 * A bundle's tags: its `meta` variable `tags` once evaluated (a string is
 * split at commas), else the tags written in its policy.
 */
function bundleTags(ctx: EvalContext, bundle: PolicyBundleInfo): readonly string[] {
  const colon = bundle.name.indexOf(":");
  const ref = {
    ns: bundle.name.slice(0, colon),
    scope: `${bundle.name.slice(colon + 1)}_meta`,
    name: "tags",
  };
  const value = ctx.getVariable({ ...ref, indices: [] });
  if (!value) return bundle.tags;
  if (isList(value)) return value.value;
  return value.type === "data" ? [] : value.value.split(",");
}

function bundlesMatching(args: readonly (string | undefined)[], ctx: EvalContext) {
  const [pattern, ...tagPatterns] = args;
  if (pattern === undefined || tagPatterns.some((t) => t === undefined)) return undefined;
  // 3.21 checks the first tag pattern once for every one given.
  const tagPattern = tagPatterns[0];
  const found: string[] = [];
  for (const bundle of ctx.policyBundles) {
    const matched = matchesFully(pattern, bundle.name);
    if (matched instanceof PcreError) {
      const message = `Could not compile regex '${pattern}': ${matched.message}`;
      emitFunctionMessage(ctx, "error", "bundlesmatching", message);
      return undefined;
    }
    if (!matched) continue;
    const tags = tagPattern === undefined ? [] : bundleTags(ctx, bundle);
    if (tagPattern === undefined || tags.some((t) => matchesFully(tagPattern, t) === true))
      found.push(bundle.name);
  }
  // 3.21 prepends each match: the list comes out in reverse policy order.
  return list(found.reverse());
}

export const policyFunctions: readonly BuiltinFunction[] = [
  defineFunction("bundlesmatching", 1, Number.POSITIVE_INFINITY, (args, { ctx }) =>
    bundlesMatching(args.map(text), ctx),
  ),
];
