/** `require_comments => "true"` in `body common control`: every promise needs a comment. */
import { getPromiseType } from "../syntax/index.js";
import type { ValidationContext } from "./context.js";
import { getScalarText, isScalar } from "./values.js";

const TRUE_WORDS = ["true", "yes", "on"];

function isCommentRequired(ctx: ValidationContext): boolean {
  const control = ctx.index.bodies.find(
    (b) => b.node.type.text === "common" && b.node.name.text === "control",
  );
  const attribute = control?.node.groups
    .filter((g) => g.guard === null || g.guard.expression === "any")
    .flatMap((g) => g.attributes)
    .findLast((a) => a.name.text === "require_comments");
  return (
    attribute !== undefined &&
    isScalar(attribute.value) &&
    TRUE_WORDS.includes(getScalarText(attribute.value))
  );
}

/** Reports promises without a `comment` when the policy requires comments. */
export function checkRequiredComments(ctx: ValidationContext): void {
  if (!isCommentRequired(ctx)) return;
  for (const { node: bundle, file } of ctx.index.bundles) {
    for (const section of bundle.sections) {
      if (!getPromiseType(bundle.type.text, section.type.text)) continue;
      for (const promise of section.groups.flatMap((g) => g.promises)) {
        if (promise.attributes.some((a) => a.name.text === "comment")) continue;
        const message = `this policy sets require_comments, but this ${section.type.text} promise has no 'comment'`;
        ctx.report("error", "invalid-promise", message, promise.promiser.span, file);
      }
    }
  }
}
