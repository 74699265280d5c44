/**
 * cf-serverd 3.21's evaluation of bundles (KeepPromiseBundles): every
 * `common` and `server` bundle in the policy's order, without a
 * bundlesequence. A common bundle's types run as meta, vars, classes,
 * reports; a server bundle's as meta, vars, classes, roles, access. Other
 * types are warned about ("for backward compatibility") and do nothing;
 * `meta` and `reports` do nothing either (cf-serverd keeps only vars,
 * classes, roles and access). Bundles with parameters are skipped with a
 * warning.
 *
 * Each promise is expanded as 3.21's ExpandPromise does: the class guard,
 * then one turn per combination of iterated lists, `if`/`unless` checked in
 * each turn. `$(connection.ip)`, `$(connection.hostname)` and
 * `$(connection.key)` are not variables at this time and stay as written.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import type { Attribute, Bundle, Promise as PromiseNode } from "../../language/ast.js";
import type { EvalContext } from "../../eval/context.js";
import { type ExpandOptions, expandRval, expandString } from "../../eval/expand.js";
import { collectIterationTexts, iterate } from "../../eval/iteration.js";
import { bundleThisVars, isGuardTrue, isPromiseEnabled, resolveSections } from "../../eval/resolve.js";
import { type Value, isList, isScalar, scalar } from "../../eval/values.js";
import { resolveBody } from "../../promises/bodies.js";
import type { PolicyIndex } from "../../promises/policy-index.js";
import { Acl, type AclEntry, legacyHostnameRules, legacyItemKind } from "./acl.js";

const SERVER_TYPES = ["meta", "vars", "classes", "roles", "access"];
const COMMON_TYPES = ["meta", "vars", "classes", "reports"];

/** The server's lists, built from the access and roles promises. */
export class ServerAcls {
  readonly paths = new Acl();
  readonly contexts = new Acl();
  readonly variables = new Acl();
  readonly literals = new Acl();
  readonly queries = new Acl();
  readonly bundles = new Acl();
  readonly roles = new Acl();
  /** shortcut → the promiser it stands for. */
  readonly shortcuts = new Map<string, string>();
  /** Literal handle (or query name) → the value served (the promiser, as Enterprise does). */
  readonly literalValues = new Map<string, string>();
  /** Path entry → its `maproot` items (used only by the classic protocol in 3.21). */
  readonly mapRoot = new Map<string, string[]>();
  /** Some hostname rule was added: the daemon must look up peers' names. */
  needReverseLookup = false;
}

export interface EvaluationMessage {
  readonly level: "error" | "warning" | "info" | "verbose";
  readonly message: string;
}

export interface BundleSource {
  readonly bundle: Bundle;
  /** The file it was read from (for `this.promise_filename`). */
  readonly path: string;
}

/** Evaluates the common and server bundles, in order, into `acls`; `index` finds action bodies. */
export function evaluateServerBundles(
  ctx: EvalContext,
  bundles: readonly BundleSource[],
  acls: ServerAcls,
  messages: EvaluationMessage[],
  index?: PolicyIndex,
): void {
  for (const { bundle, path } of bundles) {
    const type = bundle.type.text;
    if (type !== "server" && type !== "common") continue;
    if ((bundle.params?.length ?? 0) > 0) {
      messages.push({
        level: "warning",
        message: `Cannot implicitly evaluate bundle '${type} ${bundle.name.text}', as this bundle takes arguments.`,
      });
      continue;
    }
    evaluateBundle(ctx, bundle, path, type === "server" ? SERVER_TYPES : COMMON_TYPES, {
      acls,
      messages,
      index,
    });
  }
}

interface Sinks {
  readonly acls: ServerAcls;
  readonly messages: EvaluationMessage[];
  readonly index: PolicyIndex | undefined;
}

function evaluateBundle(
  ctx: EvalContext,
  bundle: Bundle,
  path: string,
  sequence: readonly string[],
  sinks: Sinks,
): void {
  const { messages } = sinks;
  ctx.pushFrame(bundle.namespace, bundle.name.text, bundleThisVars(path));
  try {
    for (const type of sequence) {
      if (type === "vars" || type === "classes") resolveSections(ctx, bundle, type, {}, path);
      else if (type === "access" || type === "roles") {
        for (const section of bundle.sections) {
          if (section.type.text !== type) continue;
          for (const group of section.groups) {
            if (!isGuardTrue(ctx, group.guard)) continue;
            for (const promise of group.promises) expandServerPromise(ctx, type, promise, sinks);
          }
        }
      }
    }
    for (const section of bundle.sections) {
      if (sequence.includes(section.type.text)) continue;
      messages.push({
        level: "warning",
        message: `Trying to evaluate unsupported/obsolete promise type ${section.type.text} in ${bundle.type.text} bundle ${bundle.name.text}`,
      });
    }
  } finally {
    ctx.popFrame();
  }
}

/** One access or roles promise, once per turn of its iteration. */
function expandServerPromise(
  ctx: EvalContext,
  type: "access" | "roles",
  promise: PromiseNode,
  { acls, messages, index }: Sinks,
): void {
  const texts = [promise.promiser.value];
  for (const attribute of promise.attributes) collectIterationTexts(attribute.value, texts);
  for (const bindings of iterate(ctx, texts)) {
    const options: ExpandOptions = { bindings };
    if (!isPromiseEnabled(ctx, promise, options)) continue;
    const expanded: ExpandedPromise = {
      promiser: expandString(ctx, promise.promiser.value, options),
      attributes: expandAttributes(ctx, promise, options, index),
    };
    warnAboutLocking(type, expanded, messages);
    if (type === "roles") keepRolePromise(expanded, acls, messages);
    else keepAccessPromise(expanded, acls, messages);
  }
}

/**
 * The promise's attributes as DeRefCopyPromise lays them out: a reference
 * to a body becomes `<name>_name`, `<name>`, then the body's attributes.
 */
function expandAttributes(
  ctx: EvalContext,
  promise: PromiseNode,
  options: ExpandOptions,
  index: PolicyIndex | undefined,
): ExpandedPromise["attributes"] {
  const out: { name: string; value: Value | undefined }[] = [];
  for (const attribute of promise.attributes) {
    const name = attribute.name.text;
    const ref = attribute.value;
    const body =
      index && (ref.kind === "symbol" || ref.kind === "call")
        ? resolveBody(ctx, index, name, ref, () => {})
        : undefined;
    if (!body) {
      out.push({ name, value: expandAttribute(ctx, attribute, options) });
      continue;
    }
    out.push({ name: `${name}_name`, value: scalar(body.name) });
    out.push({ name, value: scalar(body.name) });
    for (const [inner, value] of body.attributes)
      out.push({ name: inner, value: expandAttribute(ctx, value, options) });
  }
  return out;
}

/** Access and roles promises take no locks: ifelapsed/expireafter (of an action body) are warned about. */
function warnAboutLocking(type: string, promise: ExpandedPromise, messages: EvaluationMessage[]): void {
  for (const name of ["ifelapsed", "expireafter"]) {
    if (!promise.attributes.some((a) => a.name === name)) continue;
    messages.push({
      level: "warning",
      message: `${name} attribute specified in action body for ${type} promise '${promise.promiser}', but ${type} promises do not support promise locking`,
    });
  }
}

interface ExpandedPromise {
  readonly promiser: string;
  readonly attributes: readonly { readonly name: string; readonly value: Value | undefined }[];
}

function expandAttribute(ctx: EvalContext, attribute: Attribute, options: ExpandOptions): Value | undefined {
  return expandRval(ctx, attribute.value, options);
}

function scalarAttribute(promise: ExpandedPromise, name: string): string | undefined {
  const found = promise.attributes.find((a) => a.name === name)?.value;
  return found && isScalar(found) ? found.value : undefined;
}

/** KeepServerPromise for access: by `resource_type` (path when absent). */
function keepAccessPromise(promise: ExpandedPromise, acls: ServerAcls, messages: EvaluationMessage[]): void {
  const resourceType = scalarAttribute(promise, "resource_type") ?? "path";
  switch (resourceType) {
    case "path":
      keepPathAccess(promise, acls, messages);
      return;
    case "literal": {
      const handle = scalarAttribute(promise, "handle");
      if (handle === undefined) {
        messages.push({
          level: "error",
          message: "Access to literal server data requires you to define a promise handle for reference",
        });
        return;
      }
      acls.literalValues.set(handle, promise.promiser);
      addConstraints(promise, acls.literals.entry(handle), acls, messages);
      return;
    }
    case "variable":
      addConstraints(promise, acls.variables.entry(promise.promiser), acls, messages);
      return;
    case "context":
      addConstraints(promise, acls.contexts.entry(promise.promiser), acls, messages);
      return;
    case "query":
      // report_data_select is Enterprise's: accepted, unused.
      acls.literalValues.set(promise.promiser, promise.promiser);
      addConstraints(promise, acls.queries.entry(promise.promiser), acls, messages);
      return;
    case "bundle":
      addConstraints(promise, acls.bundles.entry(promise.promiser), acls, messages);
      return;
  }
}

/** The longest path 3.21 takes (PATH_MAX less the terminating NUL). */
const PATH_MAX = 4096;

/**
 * KeepFileAccessPromise: the promiser made canonical as the daemon will
 * see requests. An existing path is resolved (symlinks, `..`) and a
 * directory gets a trailing "/"; a path that does not exist is taken as
 * written (its trailing "/" alone says it is a directory; a trailing "/."
 * becomes "/"); a relative path or one that cannot be resolved for another
 * reason is ignored.
 */
export function canonicalAccessPath(promiser: string, messages: EvaluationMessage[]): string | undefined {
  if (promiser.length > PATH_MAX - 1) {
    messages.push({
      level: "error",
      message: `Path '${promiser}' in access_rules is too long (${promiser.length} > ${PATH_MAX}), ignoring!`,
    });
    return undefined;
  }
  if (!promiser.startsWith("/")) {
    messages.push({ level: "info", message: `Relative paths are not allowed: ${promiser}` });
    messages.push({
      level: "error",
      message: `Failed to canonicalize path '${promiser}' in access_rules, ignoring!`,
    });
    return undefined;
  }
  let resolved: string;
  try {
    resolved = realpathSync.native(promiser);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (isDeadSymlink(promiser)) return promiser;
    if (code !== "ENOENT") {
      messages.push({ level: "info", message: `Failed to canonicalise filename '${promiser}'` });
      messages.push({
        level: "error",
        message: `Failed to canonicalize path '${promiser}' in access_rules, ignoring!`,
      });
      return undefined;
    }
    messages.push({
      level: "info",
      message: `Path does not exist, it's added as-is in access rules: ${promiser}`,
    });
    messages.push({
      level: "info",
      message: "WARNING: this means that (not) having a trailing slash defines if it's (not) a directory!",
    });
    return promiser.length >= 2 && promiser.endsWith("/.") ? promiser.slice(0, -1) : promiser;
  }
  if (promiser.endsWith("/") && !resolved.endsWith("/")) resolved += "/";
  if (!resolved.endsWith("/") && isDirectory(resolved)) resolved += "/";
  return resolved;
}

function isDeadSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function keepPathAccess(promise: ExpandedPromise, acls: ServerAcls, messages: EvaluationMessage[]): void {
  const path = canonicalAccessPath(promise.promiser, messages);
  if (path === undefined) return;
  addConstraints(promise, acls.paths.entry(path), acls, messages, path);
}

function listOf(value: Value | undefined): readonly string[] | undefined {
  return value && isList(value) ? value.value : undefined;
}

/**
 * AccessPromise_AddAccessConstraints: list attributes add rules to the
 * entry; `shortcut` registers a shortcut; `ifencrypted` and `maproot`
 * mean something only to the classic protocol.
 */
function addConstraints(
  promise: ExpandedPromise,
  entry: AclEntry,
  acls: ServerAcls,
  messages: EvaluationMessage[],
  pathEntry?: string,
): void {
  for (const { name, value } of promise.attributes) {
    if (value && isScalar(value)) {
      if (name === "shortcut") addShortcut(value.value, promise.promiser, acls, messages);
      continue;
    }
    const items = listOf(value);
    if (!items) continue;
    for (const item of items) {
      switch (name) {
        case "admit_ips":
          entry.admit.ips.push(item);
          break;
        case "deny_ips":
          entry.deny.ips.push(item);
          break;
        case "admit_hostnames":
          entry.admit.hostnames.push(item);
          acls.needReverseLookup = true;
          break;
        case "deny_hostnames":
          entry.deny.hostnames.push(item);
          acls.needReverseLookup = true;
          break;
        case "admit_keys":
          entry.admit.keys.push(item);
          break;
        case "deny_keys":
          entry.deny.keys.push(item);
          break;
        case "admit":
          addLegacy(entry.admit, item, acls);
          break;
        case "deny":
          addLegacy(entry.deny, item, acls);
          break;
        case "maproot":
          if (pathEntry !== undefined)
            acls.mapRoot.set(pathEntry, [...(acls.mapRoot.get(pathEntry) ?? []), item]);
          break;
      }
    }
  }
}

/** racl_SmartAppend: a legacy `admit`/`deny` item sorted into keys, IPs or hostnames. */
function addLegacy(rules: AclEntry["admit"], item: string, acls: ServerAcls): void {
  switch (legacyItemKind(item)) {
    case "key":
      rules.keys.push(item);
      return;
    case "ip":
      rules.ips.push(item);
      return;
    case "hostname": {
      const added = legacyHostnameRules(item);
      rules.hostnames.push(...added);
      if (added.length > 0) acls.needReverseLookup = true;
    }
  }
}

function addShortcut(
  shortcut: string,
  promiser: string,
  acls: ServerAcls,
  messages: EvaluationMessage[],
): void {
  if (shortcut.includes("/")) {
    messages.push({ level: "error", message: `slashes are forbidden in ACL shortcut: ${shortcut}` });
  } else if (acls.shortcuts.has(shortcut)) {
    // 3.21 says "replaced" but keeps the first.
    messages.push({
      level: "warning",
      message: `Already existing shortcut for path '${promiser}' was replaced`,
    });
  } else acls.shortcuts.set(shortcut, promiser);
}

/** KeepServerRolePromise: `authorize` users for the classes the promiser (a regex) matches. */
function keepRolePromise(promise: ExpandedPromise, acls: ServerAcls, messages: EvaluationMessage[]): void {
  const entry = acls.roles.entry(promise.promiser);
  for (const { name, value } of [...promise.attributes].reverse()) {
    if (name === "authorize") {
      const items = listOf(value);
      if (!items) {
        messages.push({
          level: "error",
          message: `Right-hand side of authorize promise for '${promise.promiser}' should be a list`,
        });
        continue;
      }
      entry.admit.usernames.push(...items);
    } else if (name !== "comment" && name !== "handle" && !(value && isList(value))) {
      messages.push({ level: "warning", message: `Unrecognised promise '${name}' for ${promise.promiser}` });
    }
  }
}
