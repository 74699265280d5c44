/**
 * Checks of `promise agent NAME { path => ...; interpreter => ...; }`
 * blocks, which declare custom promise types implemented by modules.
 */
import type { Attribute, CustomPromiseBlock } from "../ast.js";
import { isBuiltinPromiseType } from "../syntax/index.js";
import { checkAttributeCommon, reportUnknownAttribute } from "./attributes.js";
import type { ValidationContext } from "./context.js";
import { checkValueShape } from "./values.js";

/** The attributes a promise block takes, with their value types. */
const PROMISE_BLOCK_ATTRIBUTES: Readonly<Record<string, "string" | "slist" | "body">> = {
  path: "string",
  interpreter: "string",
  meta: "slist",
  inherit_from: "body",
};

/** Checks one promise block. */
export function checkPromiseBlock(block: CustomPromiseBlock, file: string, ctx: ValidationContext): void {
  if (block.type.text !== "agent") {
    const message = `custom promise types can only be declared for cf-agent: write 'promise agent ${block.name.text}', not 'promise ${block.type.text} ${block.name.text}'`;
    ctx.report("error", "custom-promise-not-agent", message, block.type.span, file);
    return;
  }
  if (isBuiltinPromiseType(block.name.text)) {
    const message = `'${block.name.text}' is a built-in promise type and cannot be redefined by a promise block; choose another name`;
    ctx.report("error", "builtin-promise-redefined", message, block.name.span, file);
  }
  for (const group of block.groups) {
    for (const attribute of group.attributes) checkPromiseBlockAttribute(block, attribute, file, ctx);
  }
}

function checkPromiseBlockAttribute(
  block: CustomPromiseBlock,
  attribute: Attribute,
  file: string,
  ctx: ValidationContext,
): void {
  const name = attribute.name.text;
  const type = PROMISE_BLOCK_ATTRIBUTES[name];
  const where = `'promise agent ${block.name.text}'`;
  if (!type) {
    reportUnknownAttribute(attribute, where, Object.keys(PROMISE_BLOCK_ATTRIBUTES), file, ctx);
    return;
  }
  checkAttributeCommon(attribute, undefined, where, file, ctx);
  const shape = checkValueShape(
    { name, type, status: "normal", visibility: "body", range: "" },
    attribute.value,
  );
  if (shape) ctx.report("error", shape.code, shape.message, shape.span, file);
  if (type === "slist" && attribute.value.kind !== "list" && attribute.value.kind !== "call") {
    ctx.report(
      "error",
      "type-mismatch",
      `attribute '${name}' takes a list; write the value inside { }`,
      attribute.value.span,
      file,
    );
  }
}
