/**
 * Lookups in tend's tables of CFEngine 3.21 syntax. The maps are built once,
 * when this module loads; every lookup returns `undefined` (never throws) for
 * a name 3.21 does not know.
 */
import { BODY_TYPES } from "./body-types.js";
import { BUNDLE_TYPES } from "./bundle-types.js";
import {
  BUNDLE_EVALUATIONS,
  type BundleEvaluation,
  DEFAULT_EVALUATOR,
  type Evaluator,
} from "./evaluation.js";
import { FUNCTIONS } from "./functions.js";
import { PROMISE_TYPES } from "./promise-types.js";
import type {
  AttributeSyntax,
  BodyTypeSyntax,
  BundleTypeSyntax,
  FunctionSyntax,
  PromiseTypeSyntax,
} from "./types.js";

export { BODY_TYPES } from "./body-types.js";
export { BUNDLE_TYPES, COMMON_PROMISE_TYPES } from "./bundle-types.js";
export { CUSTOM_PROMISE_BLOCK, CUSTOM_PROMISE_BLOCK_TYPE } from "./custom.js";
export { describeSyntax, type SyntaxDescription } from "./describe.js";
export * from "./evaluation.js";
export { FUNCTIONS } from "./functions.js";
export {
  EDIT_LINE_BUNDLE_ATTRIBUTES,
  EDIT_XML_BUNDLE_ATTRIBUTES,
  GLOBAL_ATTRIBUTES,
  PROMISE_TYPES,
} from "./promise-types.js";
export type * from "./types.js";

function mapOf<T>(record: Readonly<Record<string, T>>): ReadonlyMap<string, T> {
  return new Map(Object.entries(record));
}

const bundleTypes = mapOf(BUNDLE_TYPES);
const bodyTypes = mapOf(BODY_TYPES);
const promiseTypes = mapOf(PROMISE_TYPES);
const functions = mapOf(FUNCTIONS);
const functionList: readonly FunctionSyntax[] = [...functions.values()];

/** Per bundle type, the promise types it accepts (removed ones included). */
const allowed: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  [...bundleTypes.values()].map((b) => [
    b.name,
    new Set([...b.promiseTypes, ...(b.removedPromiseTypes ?? [])]),
  ]),
);

const evaluations: ReadonlyMap<string, BundleEvaluation> = new Map(
  BUNDLE_EVALUATIONS.map((e) => [`${e.evaluator} ${e.bundleType}`, e]),
);

/**
 * The bundle type `bundle NAME`. This includes the types 3.21 only parses
 * (`parsedOnly`: hub, knowledge...), which accept the common promise types.
 */
export function getBundleType(name: string): BundleTypeSyntax | undefined {
  return bundleTypes.get(name);
}

/**
 * The promise type `promiseType:` within a bundle of `bundleType`;
 * `undefined` when that bundle type does not allow it (or either is unknown,
 * e.g. a custom promise type). Check `status`: a removed promise type is
 * recognised only to be skipped with a warning.
 */
export function getPromiseType(bundleType: string, promiseType: string): PromiseTypeSyntax | undefined {
  return allowed.get(bundleType)?.has(promiseType) === true ? promiseTypes.get(promiseType) : undefined;
}

/** The body type `body NAME ...`; `undefined` for a custom body type. */
export function getBodyType(name: string): BodyTypeSyntax | undefined {
  return bodyTypes.get(name);
}

/** An attribute of a promise in a `promiseType:` section of a `bundleType` bundle. */
export function getPromiseAttribute(
  bundleType: string,
  promiseType: string,
  attribute: string,
): AttributeSyntax | undefined {
  const syntax = getPromiseType(bundleType, promiseType);
  return syntax !== undefined && Object.hasOwn(syntax.attributes, attribute)
    ? syntax.attributes[attribute]
    : undefined;
}

/** An attribute of a body of type `bodyType`. */
export function getBodyAttribute(bodyType: string, attribute: string): AttributeSyntax | undefined {
  const syntax = bodyTypes.get(bodyType);
  return syntax !== undefined && Object.hasOwn(syntax.attributes, attribute)
    ? syntax.attributes[attribute]
    : undefined;
}

/** The built-in function `name`. */
export function getFunction(name: string): FunctionSyntax | undefined {
  return functions.get(name);
}

/** Every built-in function, by name in ascending order. */
export function listFunctions(): readonly FunctionSyntax[] {
  return functionList;
}

/**
 * Whether `name` is a built-in promise type in any bundle type, removed ones
 * included; such a name cannot be declared by `promise agent NAME`.
 */
export function isBuiltinPromiseType(name: string): boolean {
  return promiseTypes.has(name);
}

/** Whether `body NAME control` is a control body (`common`, `agent`, `file`...). */
export function isControlBodyType(name: string): boolean {
  return bodyTypes.get(name)?.control === true;
}

/** Whether 3.21 accepts `bundle NAME` at all. */
export function isBundleType(name: string): boolean {
  return bundleTypes.has(name);
}

/**
 * How `evaluator` (by default the program that normally runs `bundleType`)
 * evaluates bundles of that type; `undefined` when it does not.
 */
export function getBundleEvaluation(bundleType: string, evaluator?: Evaluator): BundleEvaluation | undefined {
  const by =
    evaluator ?? (Object.hasOwn(DEFAULT_EVALUATOR, bundleType) ? DEFAULT_EVALUATOR[bundleType] : undefined);
  return by === undefined ? undefined : evaluations.get(`${by} ${bundleType}`);
}

/**
 * The normal order of promise types in a `bundleType` bundle; `undefined`
 * when the sections run in the order written (monitor) or nothing runs the
 * bundle type.
 */
export function promiseTypeOrder(bundleType: string, evaluator?: Evaluator): readonly string[] | undefined {
  return getBundleEvaluation(bundleType, evaluator)?.order ?? undefined;
}
