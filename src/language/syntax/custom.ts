/**
 * The syntax of custom promise types in 3.21: the `promise agent NAME { }`
 * block that declares one.
 *
 * 3.21 checks nothing else about custom things before running the module:
 * the attributes of a custom promise are passed to the module as written,
 * and a body of a type 3.21 does not know (`body mytype x { a => "b"; }`) is
 * taken as a custom body with any attributes.
 */
import { bodyType } from "./define.js";
import type { BodyTypeSyntax } from "./types.js";

/** The only word 3.21 accepts after `promise`: `promise agent NAME`. */
export const CUSTOM_PROMISE_BLOCK_TYPE = "agent";

/**
 * The attributes of a `promise agent NAME { }` block. NAME must not be a
 * built-in promise type, removed ones included (see `isBuiltinPromiseType`).
 */
export const CUSTOM_PROMISE_BLOCK: BodyTypeSyntax = bodyType("promise", [
  ["inherit_from", "body"],
  ["interpreter", "string"],
  ["meta", "slist"],
  ["path", "string"],
]);
