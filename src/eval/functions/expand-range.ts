/**
 * expandrange(template, step): `"host[1-3].x"` with step 1 gives host1.x,
 * host2.x, host3.x (counting down when the range does). As in 3.21 each
 * result is cut to the template's length, and a bad range or step stops
 * the run there (here: the call fails with 3.21's message).
 */
import { list } from "../values.js";
import { text } from "./args.js";
import { emitFunctionMessage } from "./messages.js";
import { type BuiltinFunction, defineFunction } from "./types.js";
import { fromByteString, toByteString } from "../regex/bytes.js";

const NO_INT = -678;

/** `[from-to]` and the text around it, as 3.21's sscanf reads the template. */
function parseTemplate(template: string): { before: string; from: number; to: number; after: string } {
  const match = template.startsWith("[")
    ? /^()\[\s*([+-]?\d+)-\s*([+-]?\d+)\]([^\n]*)/.exec(template)
    : /^([^[]+)\[\s*([+-]?\d+)-\s*([+-]?\d+)\]([^\n]*)/.exec(template);
  if (!match) return { before: "", from: NO_INT, to: NO_INT, after: "" };
  return { before: match[1], from: Number(match[2]), to: Number(match[3]), after: match[4] };
}

/** C's `atoi`: the leading integer, 0 when there is none. */
function atoi(raw: string): number {
  const match = /^\s*([+-]?\d+)/.exec(raw);
  return match ? Number.parseInt(match[1], 10) : 0;
}

export const expandRangeFunctions: readonly BuiltinFunction[] = [
  defineFunction("expandrange", 2, 2, ([templateArg, stepArg], fc) => {
    const template = text(templateArg);
    const stepText = text(stepArg);
    if (template === undefined || stepText === undefined) return undefined;
    const { before, from, to, after } = parseTemplate(template);
    const step = atoi(stepText);
    const fail = (message: string) => {
      emitFunctionMessage(fc.ctx, "error", "expandrange", message);
      return undefined;
    };
    if (step < 1 || Math.abs(from - to) < step) {
      return fail("EXPANDRANGE Step size cannot be less than 1 or greater than the interval");
    }
    if (from === NO_INT || to === NO_INT) return fail("EXPANDRANGE malformed range expression");
    const limit = toByteString(template).length;
    const out: string[] = [];
    const add = (i: number) =>
      out.push(fromByteString(toByteString(`${before}${i}${after}`).slice(0, limit)));
    if (from > to) for (let i = from; i >= to; i -= step) add(i);
    else for (let i = from; i <= to; i += step) add(i);
    return list(out);
  }),
];
