/**
 * Puppet's function dispatch: a function has signatures tried in order;
 * the first whose parameter types, argument count and block fit is called.
 * When none fits, the message is the one Puppet's mismatch describer
 * writes ("'split' expects 2 arguments, got 1", "'abs' parameter 'val'
 * expects a value of type Numeric or String, got Tuple", or the list of
 * rejected signatures).
 */
import { type CallContext, FunctionArgumentError, type PuppetFunction } from "../registry.js";
import { type PType, describeBlockMismatch, inferType } from "../../types.js";
import type { PCallable, PValue } from "../../values.js";
import { type Spec, actualClass, actualDetailed } from "./spec.js";

export interface Param {
  readonly name: string;
  readonly type: Spec;
  /** `optional_param`. */
  readonly optional?: boolean;
  /** `repeated_param` (with `optional`: zero or more; without: one or more). */
  readonly repeated?: boolean;
}

export interface BlockParam {
  readonly name?: string;
  /** Argument counts the block must accept (`Callable[1,1]`); undefined: any block. */
  readonly arity?: readonly [number, number];
  readonly optional?: boolean;
  /** The rendering in signature lists (`Callable[1,1]`). */
  readonly label?: string;
  /** Left out of the signature in Puppet's list (a `required_block_param` of an aliased type). */
  readonly hidden?: boolean;
  /**
   * The block's declared type when its parameters are typed
   * (`Callable[Type, Type]`): a lambda's Callable type must fit it.
   */
  readonly type?: PType;
}

export interface Signature {
  readonly params: readonly Param[];
  readonly block?: BlockParam;
  readonly call: (ctx: CallContext, args: readonly PValue[], block: PCallable | undefined) => PValue;
  /** An `argument_mismatch` handler: when it fits, its result is the error's text. */
  readonly mismatch?: boolean;
}

/** Builds a function from its signatures (tried in order). */
export function dispatcher(name: string, signatures: readonly Signature[]): PuppetFunction {
  return (ctx, args, block) => {
    for (const sig of signatures) {
      if (!fits(sig, args, block)) continue;
      if (!sig.mismatch) return sig.call(ctx, args, block);
      const text = sig.call(ctx, args, block);
      throw new FunctionArgumentError(`'${name}' ${typeof text === "string" ? text : ""}`);
    }
    const real = signatures.filter((s) => !s.mismatch);
    throw new FunctionArgumentError(describeSignatures(name, real, args, block));
  };
}

/** Shorthands for a parameter list. */
export const p = (name: string, type: Spec): Param => ({ name, type });
export const opt = (name: string, type: Spec): Param => ({ name, type, optional: true });
export const rep = (name: string, type: Spec): Param => ({ name, type, repeated: true, optional: true });
export const rep1 = (name: string, type: Spec): Param => ({ name, type, repeated: true });
export const blk = (min: number, max = min, optional = false, name = "block"): BlockParam => ({
  name,
  arity: [min, max],
  optional,
  label: `Callable[${min}, ${max}]`,
});

function countRange(sig: Signature): [number, number] {
  let min = 0;
  let max = 0;
  for (const prm of sig.params) {
    if (!prm.optional) min++;
    max = prm.repeated ? Number.POSITIVE_INFINITY : max + 1;
  }
  return [min, max];
}

function paramAt(sig: Signature, i: number): Param | undefined {
  return sig.params[i] ?? (sig.params.at(-1)?.repeated ? sig.params.at(-1) : undefined);
}

function blockFits(b: BlockParam | undefined, block: PCallable | undefined): boolean {
  if (block === undefined) return b === undefined || b.optional === true;
  if (b === undefined) return false;
  if (b.type !== undefined) return b.type.isInstance(block);
  if (b.arity === undefined) return true;
  return block.minArgs <= b.arity[0] && b.arity[0] <= block.maxArgs;
}

function fits(sig: Signature, args: readonly PValue[], block: PCallable | undefined): boolean {
  const [min, max] = countRange(sig);
  if (args.length < min || args.length > max) return false;
  for (let i = 0; i < args.length; i++) if (!paramAt(sig, i)?.type.test(args[i])) return false;
  return blockFits(sig.block, block);
}

type Mismatch =
  | { kind: "count"; path: string; min: number; max: number; actual: number; actualMax?: number }
  | { kind: "described"; path: string; text: string }
  | { kind: "type"; path: string; expected: Spec[]; actual: PValue }
  | { kind: "key"; path: string; text: string }
  | { kind: "block-missing"; path: string }
  | { kind: "block-unexpected"; path: string };

function argumentMismatch(sig: Signature, args: readonly PValue[]): Mismatch[] {
  const [min, max] = countRange(sig);
  if (args.length < min || args.length > max)
    return [{ kind: "count", path: "", min, max, actual: args.length }];
  for (let i = 0; i < args.length; i++) {
    const prm = paramAt(sig, i);
    if (!prm || prm.type.test(args[i]) || prm.type.quietFor?.(args[i])) continue;
    const path = ` parameter '${prm.name}'`;
    const several = prm.type.explainEach?.(args[i]);
    if (several !== undefined && several.length > 1)
      return several.map((text): Mismatch => ({ kind: "described", path, text: `${path}${text}` }));
    return [typeMismatch(path, prm.type, args[i])];
  }
  return [];
}

/** A type mismatch, descending into arrays whose element type is known. */
function typeMismatch(path: string, type: Spec, actual: PValue): Mismatch {
  // Struct key errors are their own kind: Puppet never merges them across signatures.
  const custom = type.explain?.(actual);
  if (custom?.startsWith(" unrecognized key")) return { kind: "key", path, text: custom };
  const elem = type.elementOf;
  if (elem && Array.isArray(actual)) {
    const i = actual.findIndex((x) => !elem.test(x));
    if (i >= 0) return typeMismatch(`${path} index ${i}`, elem, actual[i]);
  }
  return { kind: "type", path, expected: [type], actual };
}

function blockMismatch(sig: Signature, block: PCallable | undefined): Mismatch[] {
  const b = sig.block;
  if (block === undefined) return b === undefined || b.optional ? [] : [{ kind: "block-missing", path: "" }];
  if (b === undefined) return [{ kind: "block-unexpected", path: "" }];
  if (b.type !== undefined) return blockTypeMismatch(b.type, block);
  if (b.arity === undefined || blockFits(b, block)) return [];
  return [
    {
      kind: "count",
      path: " block",
      min: b.arity[0],
      max: b.arity[1],
      actual: block.minArgs,
    },
  ];
}

/** What Puppet's describer says of a block its signature's typed block refuses (maybe nothing). */
function blockTypeMismatch(type: PType, block: PCallable): Mismatch[] {
  // Puppet describes the block even where the call would take it (its describer compares the other way).
  const num = (n: bigint | undefined): number => (n === undefined ? Number.POSITIVE_INFINITY : Number(n));
  return describeBlockMismatch(type, inferType(block)).map((d): Mismatch => {
    if (d.count === undefined)
      return { kind: "described", path: d.text.replace(/ expects .*/s, ""), text: d.text };
    return {
      kind: "count",
      path: " block",
      min: num(d.count.expected.from ?? 0n),
      max: num(d.count.expected.to),
      actual: num(d.count.actual.from ?? 0n),
      actualMax: num(d.count.actual.to),
    };
  });
}

/** Puppet's text for a call no signature accepts. */
export function describeSignatures(
  name: string,
  signatures: readonly Signature[],
  args: readonly PValue[],
  block: PCallable | undefined,
): string {
  let errors: Mismatch[][] = signatures.map((s) => argumentMismatch(s, args));
  if (!errors.every((e) => e.length > 0)) {
    const blocks = signatures.map((s) => blockMismatch(s, block));
    const count = blocks.filter((b) => b.length > 0).length;
    if (count === blocks.length) errors = blocks;
    else if (count > 0) errors = errors.map((e, i) => (e.length > 0 ? e : (blocks[i] as Mismatch[])));
  }
  const label = `'${name}'`;
  const present = errors.flat();
  const merged = mergeMismatches(present, signatures.length);
  if (merged) return `${label}${formatMismatch(merged)}`;
  if (signatures.length === 1) {
    const sig = signatures[0] as Signature;
    const lines = [`${label} expects (${signatureString(sig)})`];
    for (const e of present) lines.push(`  rejected:${formatMismatch(e)}`);
    return lines.join("\n");
  }
  const lines = [`The function ${label} was called with arguments it does not accept. It expects one of:`];
  signatures.forEach((sig, i) => {
    lines.push(`  (${signatureString(sig)})`);
    for (const e of errors[i] ?? []) lines.push(`    rejected:${formatMismatch(e)}`);
  });
  return lines.join("\n");
}

function mergeMismatches(errors: Mismatch[], total: number): Mismatch | undefined {
  if (errors.length === 1 && total === 1) return errors[0];
  for (const kind of ["count", "block-missing", "block-unexpected", "type", "described"] as const) {
    const same = errors.filter((e) => e.kind === kind);
    if (same.length !== total || total === 0) continue;
    if (!same.every((e) => e.path === same[0]?.path)) continue;
    if (kind === "described" && !same.every((e) => formatMismatch(e) === formatMismatch(same[0] as Mismatch)))
      continue;
    return same.reduce((a, b) => mergeTwo(a, b));
  }
  return undefined;
}

function mergeTwo(a: Mismatch, b: Mismatch): Mismatch {
  if (a.kind === "count" && b.kind === "count")
    return { ...a, min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
  if (a.kind === "type" && b.kind === "type") {
    const expected = [...a.expected];
    for (const t of b.expected) if (!expected.some((x) => x.full === t.full)) expected.push(t);
    return { ...a, expected };
  }
  return a;
}

function rangeText(min: number, max: number, zero: string): string {
  if (min === max) return min === 0 ? zero : String(min);
  if (min === 0) return max === Number.POSITIVE_INFINITY ? "unlimited" : `at most ${max}`;
  if (max === Number.POSITIVE_INFINITY) return `at least ${min}`;
  return `between ${min} and ${max}`;
}

function formatMismatch(m: Mismatch): string {
  switch (m.kind) {
    case "count": {
      const one =
        (m.min === 1 && (m.max === 1 || m.max === Number.POSITIVE_INFINITY)) || (m.min === 0 && m.max === 1);
      return `${m.path} expects ${rangeText(m.min, m.max, "no")} argument${one ? "" : "s"}, got ${rangeText(m.actual, m.actualMax ?? m.actual, "none")}`;
    }
    case "described":
      return m.text;
    case "key":
      return `${m.path}${m.text}`;
    case "block-missing":
      return `${m.path} expects a block`;
    case "block-unexpected":
      return `${m.path} does not expect a block`;
    case "type":
      return `${m.path}${typeMismatchText(m.expected, m.actual)}`;
  }
}

function flattenExpected(specs: readonly Spec[]): { types: Spec[]; optional: boolean } {
  const types: Spec[] = [];
  let optional = false;
  const add = (s: Spec) => {
    if (s.optionalOf) {
      optional = true;
      add(s.optionalOf);
    } else if (s.members) for (const m of s.members) add(m);
    else if (!types.some((t) => t.full === s.full)) types.push(s);
  };
  for (const s of specs) add(s);
  return { types, optional };
}

/** " expects a value of type A or B, got C" as Puppet's TypeMismatch words it. */
export function typeMismatchText(specs: readonly Spec[], actual: PValue): string {
  const custom = specs.length === 1 ? specs[0]?.explain?.(actual) : undefined;
  if (custom !== undefined) return custom;
  const { types, optional } = flattenExpected(specs);
  if (types.length > 0 && types.every((t) => t.isPattern))
    return patternMismatchText(types, optional, actual);
  const aCls = actualClass(actual);
  const fully = types.some((t) => t.cls === aCls || t.cls === "Alias");
  const detailed = fully || types.some((t) => t.kindTest(actual));
  let names: string[];
  let a: string;
  if (detailed) {
    names = types.map((t) => t.full);
    a = fully ? actualDetailed(actual) : aCls;
  } else {
    names = [...new Set(types.map((t) => t.short))];
    a = aCls;
  }
  if (optional) names.unshift("Undef");
  if (names.length === 1) return ` expects ${aAn(names[0] as string)} value, got ${a}`;
  const e =
    names.length === 2
      ? `${names[0]} or ${names[1]}`
      : `${names.slice(0, -1).join(", ")}, or ${names.at(-1)}`;
  return ` expects a value of type ${e}, got ${a}`;
}

/** Enum and Pattern mismatches: "expects a match for Enum['a', 'b'], got 'x'" (enums merged into one). */
function patternMismatchText(types: readonly Spec[], optional: boolean, actual: PValue): string {
  let expected: string;
  if (types.every((t) => t.enumValues)) {
    const values = [...new Set(types.flatMap((t) => t.enumValues ?? []))].sort();
    expected = `Enum[${values.map((v) => `'${v}'`).join(", ")}]`;
  } else
    expected =
      types.length === 1 ? (types[0] as Spec).full : `Variant[${types.map((t) => t.full).join(", ")}]`;
  const a = typeof actual === "string" ? `'${actual}'` : actualClass(actual);
  return ` expects ${optional ? "an undef value or " : ""}a match for ${expected}, got ${a}`;
}

function aAn(word: string): string {
  return /^[AEIOU]/i.test(word) ? `an ${word}` : `a ${word}`;
}

function signatureString(sig: Signature): string {
  const [min, max] = countRange(sig);
  const parts = sig.params.map((prm, i) => {
    let ind = "";
    if (max === Number.POSITIVE_INFINITY && i === sig.params.length - 1)
      ind = min === sig.params.length ? "+" : "*";
    else if (i + 1 > min) ind = "?";
    const t = ind === "?" && prm.type.optionalOf ? prm.type.optionalOf : prm.type;
    return `${t.full} ${prm.name}${ind}`;
  });
  const b = sig.block;
  if (b && !b.hidden) parts.push(`${b.label ?? "Callable"} ${b.name ?? "block"}${b.optional ? "?" : ""}`);
  return parts.join(", ");
}
