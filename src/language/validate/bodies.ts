/**
 * Checks of `body` blocks: their attributes and values, control bodies
 * without parameters, and the rules particular to `action` and `acl`
 * bodies. Bodies of types 3.21 does not know are custom bodies and take
 * any attribute.
 */
import type { Attribute, AttributeGroup, Body } from "../ast.js";
import { getBodyType } from "../syntax/index.js";
import type { BodyTypeSyntax } from "../syntax/types.js";
import { checkAttributeCommon, reportUnknownAttribute } from "./attributes.js";
import type { ValidationContext } from "./context.js";
import { checkValue } from "./values.js";

/** Checks one body block. */
export function checkBody(body: Body, file: string, ctx: ValidationContext): void {
  if (body.name.text === "control" && body.params && body.params.length > 0) {
    const message = `control bodies take no parameters; remove the parameter list from 'body ${body.type.text} control'`;
    ctx.report("error", "wrong-argument-count", message, body.params[0].span, file);
  }
  const syntax = getBodyType(body.type.text);
  for (const group of body.groups) checkGroup(body, group, syntax, file, ctx);
  if (syntax) BODY_TYPE_CHECKS[body.type.text]?.(body, file, ctx);
}

function checkGroup(
  body: Body,
  group: AttributeGroup,
  syntax: BodyTypeSyntax | undefined,
  file: string,
  ctx: ValidationContext,
): void {
  if (group.guard?.quoted && group.attributes.length > 0) {
    const message = `body attributes cannot be guarded by a quoted (variable) class expression "${group.guard.expression}"; use an unquoted class guard`;
    ctx.report("error", "invalid-class-expression", message, group.guard.span, file);
  }
  for (const attribute of group.attributes) {
    if (syntax) checkBodyAttribute(body, attribute, syntax, file, ctx);
    if (body.type.text === "file" && attribute.name.text === "namespace")
      checkNamespace(attribute, file, ctx);
  }
}

function checkBodyAttribute(
  body: Body,
  attribute: Attribute,
  syntax: BodyTypeSyntax,
  file: string,
  ctx: ValidationContext,
): void {
  const where = `'body ${body.type.text} ${body.name.text}'`;
  const attributeSyntax = syntax.attributes[attribute.name.text];
  if (!attributeSyntax) {
    const known = Object.keys(syntax.attributes).filter((n) => syntax.attributes[n].status !== "removed");
    reportUnknownAttribute(attribute, `body type '${body.type.text}' (in ${where})`, known, file, ctx);
    return;
  }
  if (!checkAttributeCommon(attribute, attributeSyntax, where, file, ctx)) return;
  const found = checkValue(attributeSyntax, attribute.value);
  if (found) ctx.report("error", found.code, found.message, found.span, file);
}

function checkNamespace(attribute: Attribute, file: string, ctx: ValidationContext): void {
  const kind = attribute.value.kind;
  if (kind === "string" || kind === "symbol") return;
  ctx.report("error", "type-mismatch", "'namespace' must be a constant string", attribute.value.span, file);
}

type BodyTypeCheck = (body: Body, file: string, ctx: ValidationContext) => void;

const BODY_TYPE_CHECKS: Readonly<Record<string, BodyTypeCheck>> = {
  action: checkActionBody,
  acl: checkAclBody,
};

function hasAttribute(body: Body, name: string): boolean {
  return body.groups.some((g) => g.attributes.some((a) => a.name.text === name));
}

function checkActionBody(body: Body, file: string, ctx: ValidationContext): void {
  const logs = ["log_kept", "log_repaired", "log_failed"].filter((n) => hasAttribute(body, n));
  if (logs.length === 0 || hasAttribute(body, "log_string")) return;
  const message = `action body '${body.name.text}' sets ${logs.join(", ")} but no 'log_string'; add log_string => "..." saying what to write`;
  ctx.report("error", "invalid-promise", message, body.name.span, file);
}

function checkAclBody(body: Body, file: string, ctx: ValidationContext): void {
  const pairs: readonly [string, string][] = [
    ["acl_directory_inherit", "acl_default"],
    ["specify_inherit_aces", "specify_default_aces"],
  ];
  for (const [old, current] of pairs) {
    if (!hasAttribute(body, old) || !hasAttribute(body, current)) continue;
    const message = `acl body '${body.name.text}' sets both '${old}' and '${current}'; keep only '${current}'`;
    ctx.report("error", "invalid-promise", message, body.name.span, file);
  }
}
