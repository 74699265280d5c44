/**
 * Promises that expand the same way in every pass: no variable reference
 * but constants (`$(const.n)`), no function call, no quoted class guard,
 * and bodies without class guards or inheritance. Once such a promise of
 * a type that acts once per run has been done, later passes can skip it
 * without expanding it again — its expansion, hence its done-key, cannot
 * have changed. (For a files promise that is most of the agent's work in
 * passes 2 and 3.)
 */
import type { Body, Rval } from "../language/ast.js";
import type { DerefPromise } from "./active-promise.js";
import type { BodyInstance } from "../promises/bodies.js";

function isWordCode(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
  );
}

/** The end of a `$(const.x)` or `${const.x}` reference opening at `at`, or -1 if it is none. */
function constantReferenceEnd(text: string, at: number): number {
  if (!text.startsWith("const.", at + 2)) return -1;
  let end = at + 8;
  while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
  const close = text[at + 1] === "(" ? ")" : "}";
  return end > at + 8 && text[end] === close ? end : -1;
}

/** Whether the text refers to a variable other than a constant (`$(const.n)`). */
function hasReference(text: string): boolean {
  // Most texts hold no sigil at all: the native search answers for them.
  if (!text.includes("$") && !text.includes("@")) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 36 && code !== 64) continue; // $ or @
    const next = text[i + 1];
    if (next !== "(" && next !== "{") continue;
    const end = code === 36 ? constantReferenceEnd(text, i) : -1;
    if (end < 0) return true;
    i = end;
  }
  return false;
}

function isFixed(rval: Rval): boolean {
  switch (rval.kind) {
    case "string":
      return !hasReference(rval.value);
    case "symbol":
      return true;
    case "list":
      return rval.items.every(isFixed);
    default:
      return false;
  }
}

/** Answers for body instances (one instance of a body without parameters serves every promise). */
const fixedBodies = new WeakMap<BodyInstance, boolean>();

function bodyIsFixed(
  instance: BodyInstance,
  findBody: (type: string, name: string) => Body | undefined,
): boolean {
  let fixed = fixedBodies.get(instance);
  if (fixed === undefined) {
    fixed = readBodyIsFixed(instance, findBody);
    fixedBodies.set(instance, fixed);
  }
  return fixed;
}

function readBodyIsFixed(
  instance: BodyInstance,
  findBody: (type: string, name: string) => Body | undefined,
): boolean {
  const body = findBody(instance.type, instance.name);
  if (!body || body.groups.some((group) => group.guard !== null)) return false;
  for (const attribute of instance.attributes.values()) {
    if (attribute.name.text === "inherit_from" || !isFixed(attribute.value)) return false;
  }
  return true;
}

/** Whether every expansion of the promise, in any pass, is the same. */
export function isStaticPromise(
  deref: DerefPromise,
  findBody: (type: string, name: string) => Body | undefined,
): boolean {
  const { node } = deref;
  if (deref.varClass !== undefined || hasReference(node.promiser.value)) return false;
  if (node.promisee && !isFixed(node.promisee)) return false;
  for (const attribute of deref.attributes.values()) if (!isFixed(attribute.value)) return false;
  for (const body of deref.bodies.values()) if (!bodyIsFixed(body, findBody)) return false;
  return true;
}
