/**
 * Functions that look at the policy itself: `bundlesmatching(regex, tag...)`
 * lists the bundles whose qualified name (`ns:name`) matches and that carry
 * every given tag (the `tags` of their `meta` promises).
 */
import { PcreError } from "../regex/pcre.js";
import { matchesFully } from "../regex/match.js";
import { list } from "../values.js";
import { text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, defineFunction } from "./types.js";

export const policyFunctions: readonly BuiltinFunction[] = [
  defineFunction("bundlesmatching", 1, Number.POSITIVE_INFINITY, (args, { ctx }) => {
    const pattern = text(args[0]);
    if (pattern === undefined) return undefined;
    const tags = args.slice(1).map(text);
    if (tags.some((t) => t === undefined)) return undefined;
    const found: string[] = [];
    for (const bundle of ctx.policyBundles) {
      const matched = matchesFully(pattern, bundle.name);
      if (matched instanceof PcreError) {
        emitFunctionMessage(
          ctx,
          "error",
          "bundlesmatching",
          `Could not compile regex '${pattern}': ${matched.message}`,
        );
        return undefined;
      }
      if (matched && tags.every((t) => bundle.tags.includes(t as string))) found.push(bundle.name);
    }
    return list(found);
  }),
];
