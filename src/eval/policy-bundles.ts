/**
 * The bundles of a parsed file as functions like `bundlesmatching` see
 * them: qualified name and the `tags` of their `meta` promises.
 */
import type { Bundle, PolicyFile } from "../language/ast.js";
import type { PolicyBundleInfo } from "./context.js";

export function bundlesOf(policy: PolicyFile): PolicyBundleInfo[] {
  const out: PolicyBundleInfo[] = [];
  for (const block of policy.blocks) {
    if (block.kind === "bundle")
      out.push({ name: `${block.namespace}:${block.name.text}`, tags: metaTags(block) });
  }
  return out;
}

/** Literal `tags` values of a bundle's `meta` promises. */
function metaTags(bundle: Bundle): string[] {
  const tags: string[] = [];
  for (const section of bundle.sections) {
    if (section.type.text !== "meta") continue;
    for (const group of section.groups) {
      for (const promise of group.promises) {
        if (promise.promiser.value !== "tags") continue;
        for (const attribute of promise.attributes) {
          const value = attribute.value;
          if (value.kind === "list")
            for (const item of value.items) if (item.kind === "string") tags.push(item.value);
          if (value.kind === "string") tags.push(value.value);
        }
      }
    }
  }
  return tags;
}
