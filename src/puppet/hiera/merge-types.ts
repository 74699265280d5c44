/**
 * The value types Puppet's merge strategies accept, checked before two
 * values are merged: `hash` takes `Hash[String, Data]`, `unique` takes
 * `Variant[Scalar, Array[Data]]`, the others anything.
 */
import { PHash, type PValue } from "../eval/values.js";
import { HieraError, puppetTypeName } from "./errors.js";

function isScalar(v: PValue): boolean {
  return typeof v === "string" || typeof v === "bigint" || typeof v === "number" || typeof v === "boolean";
}

function isData(v: PValue): boolean {
  if (v === undefined || isScalar(v)) return true;
  if (Array.isArray(v)) return v.every(isData);
  if (v instanceof PHash) {
    for (const [k, x] of v) if (typeof k !== "string" || !isData(x)) return false;
    return true;
  }
  return false;
}

/** Throws Puppet's type assertion message when `v` cannot be merged by `strategy`. */
export function checkMergeValue(strategy: string, subject: string, v: PValue): void {
  if (strategy === "hash" && !(v instanceof PHash && isData(v)))
    throw new HieraError(`${subject} has wrong type, expects a Hash value, got ${puppetTypeName(v)}`);
  if (strategy === "unique" && !(isScalar(v) || (Array.isArray(v) && isData(v))))
    throw new HieraError(
      `${subject} has wrong type, expects a value of type Scalar or Array, got ${puppetTypeName(v)}`,
    );
}
