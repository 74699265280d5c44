/**
 * cf-agent's warning, while it loads a policy, about insert_lines promises
 * of one bundle that insert at the same `select_line_matching` anchor:
 * their order in the file then depends on the run, unless the file is
 * emptied first. Anchors still holding variables are not compared.
 */
import type { Logger } from "../../system/logger.js";
import { resolveBody } from "../bodies.js";
import type { PolicyIndex } from "../policy-index.js";
import type { EvalContext } from "../../eval/context.js";
import { expandRval } from "../../eval/expand.js";
import { isGuardTrue } from "../../eval/resolve.js";
import type { Promise as PromiseNode } from "../../language/ast.js";
import { promiseLine } from "../promise-ref.js";
import { asText, isUnresolved } from "../values.js";

function anchorOf(ctx: EvalContext, index: PolicyIndex, promise: PromiseNode): string | undefined {
  const location = promise.attributes.find((a) => a.name.text === "location");
  if (!location) return undefined;
  const body = resolveBody(ctx, index, "location", location.value, () => {});
  const rval = body?.attributes.get("select_line_matching")?.value;
  const anchor = rval && asText(expandRval(ctx, rval));
  return anchor === undefined || isUnresolved(anchor) ? undefined : anchor;
}

/** Logs, at info level, each insert_lines promise reusing an anchor of its bundle. */
export function warnSharedAnchors(ctx: EvalContext, index: PolicyIndex, log: Logger): void {
  const seen = new Set<string>();
  for (const { block: bundle, file } of index.allBundles()) {
    for (const section of bundle.sections) {
      if (section.type.text !== "insert_lines") continue;
      for (const group of section.groups) {
        if (!isGuardTrue(ctx, group.guard)) continue;
        for (const promise of group.promises) {
          const anchor = anchorOf(ctx, index, promise);
          if (anchor === undefined) continue;
          const key = `${bundle.name.text}\u0000${anchor}`;
          if (!seen.has(key)) {
            seen.add(key);
            continue;
          }
          log.info(
            `insert_lines promise uses the same select_line_matching anchor '${anchor}' as another promise. This will lead to non-convergent behaviour unless 'empty_file_before_editing' is set`,
          );
          log.info(
            `Promise belongs to bundle '${bundle.name.text}' in file '${file}' near line ${promiseLine(file, promise)}`,
          );
        }
      }
    }
  }
}
