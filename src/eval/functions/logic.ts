/**
 * Class and comparison functions: and, or, not, ifelse, isvariable, classify,
 * isgreaterthan, islessthan, every, some, none. (strcmp is in strings.ts,
 * regcmp and classmatch in regex.ts.)
 */
import { canonify } from "../class-expression.js";
import { hasUnresolvedReference } from "../expand.js";
import { parseVarRef } from "../var-ref.js";
import type { Value } from "../values.js";
import { classResult, collection, collectionStrings, fullMatch, text } from "./args.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

function isTrue(fc: FunctionContext, value: Value): boolean {
  const expression = text(value);
  if (expression === undefined || hasUnresolvedReference(expression)) return false;
  return fc.ctx.checkExpression(expression);
}

function compareNumbers(a: string, b: string): number | undefined {
  const x = Number(a);
  const y = Number(b);
  if (a.trim() === "" || b.trim() === "" || Number.isNaN(x) || Number.isNaN(y)) return undefined;
  return x - y;
}

function quantifier(name: string, test: (hits: number, total: number) => boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([pattern, source], fc) => {
    const regex = text(pattern);
    const values = collection(fc, source);
    if (regex === undefined || !values) return undefined;
    const strings = collectionStrings(values);
    const hits = strings.filter((s) => fullMatch(regex, s)).length;
    return classResult(test(hits, strings.length));
  });
}

export const logicFunctions: readonly BuiltinFunction[] = [
  defineFunction("and", 0, Number.POSITIVE_INFINITY, (args, fc) =>
    classResult(args.every((a) => isTrue(fc, a))),
  ),
  defineFunction("or", 0, Number.POSITIVE_INFINITY, (args, fc) =>
    classResult(args.some((a) => isTrue(fc, a))),
  ),
  defineFunction("not", 1, 1, ([a], fc) => classResult(!isTrue(fc, a))),
  defineFunction("ifelse", 1, Number.POSITIVE_INFINITY, (args, fc) => {
    if (args.length % 2 === 0) return undefined;
    for (let i = 0; i + 1 < args.length; i += 2) {
      if (isTrue(fc, args[i])) return args[i + 1];
    }
    return args[args.length - 1];
  }),
  defineFunction("isvariable", 1, 1, ([name], fc) => {
    const raw = text(name);
    return raw === undefined ? undefined : classResult(fc.ctx.getVariable(parseVarRef(raw)) !== undefined);
  }),
  defineFunction("classify", 1, 1, ([value], fc) => {
    const raw = text(value);
    return raw === undefined ? undefined : classResult(fc.ctx.isClassDefined(canonify(raw)));
  }),
  defineFunction("isgreaterthan", 2, 2, ([a, b]) => {
    const x = text(a) ?? "";
    const y = text(b) ?? "";
    const diff = compareNumbers(x, y);
    return classResult(diff === undefined ? x > y : diff > 0);
  }),
  defineFunction("islessthan", 2, 2, ([a, b]) => {
    const x = text(a) ?? "";
    const y = text(b) ?? "";
    const diff = compareNumbers(x, y);
    return classResult(diff === undefined ? x < y : diff < 0);
  }),
  quantifier("every", (hits, total) => hits === total),
  quantifier("some", (hits) => hits > 0),
  quantifier("none", (hits) => hits === 0),
];
