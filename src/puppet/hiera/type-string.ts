/**
 * A type written as text in Hiera data (`convert_to: "Array[String]"`):
 * names, `T[args]` with types, quoted strings, integers, floats, `default`
 * and `undef` as arguments. Throws a HieraError on anything else.
 */
import { parameterize, type PType, typeByName } from "../eval/types.js";
import { DEFAULT, type PValue } from "../eval/values.js";
import { HieraError } from "./errors.js";

const TOKEN =
  /\s*(?:([A-Z][\w]*(?:::[A-Z][\w]*)*)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)|([[\],])|(default|undef))/y;

export function parseTypeString(text: string): PType {
  const tokens: string[][] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < text.length && text.slice(pos).trim() !== "") {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (!m) throw new HieraError(`Syntax error at '${text.slice(pos)}'`);
    tokens.push(m.slice(1, 6) as string[]);
    pos = TOKEN.lastIndex;
  }
  let i = 0;
  const value = (): PValue => {
    const t = tokens[i++];
    if (!t) throw new HieraError(`Syntax error at end of '${text}'`);
    const [name, str, num, , word] = t;
    if (str !== undefined) return str.slice(1, -1).replace(/\\(.)/g, "$1");
    if (num !== undefined) return num.includes(".") ? Number(num) : BigInt(num);
    if (word !== undefined) return word === "default" ? DEFAULT : undefined;
    if (name === undefined) throw new HieraError(`Syntax error in '${text}'`);
    const base = typeByName(name);
    if (!base) throw new HieraError(`Unknown type '${name}'`);
    if (tokens[i]?.[3] !== "[") return base;
    i++;
    const args: PValue[] = [];
    while (tokens[i]?.[3] !== "]") {
      args.push(value());
      if (tokens[i]?.[3] === ",") i++;
      else if (tokens[i]?.[3] !== "]") throw new HieraError(`Syntax error in '${text}'`);
    }
    i++;
    const t2 = parameterize(base, args);
    return Array.isArray(t2) ? (t2[0] as PType) : t2;
  };
  const t = value();
  if (i !== tokens.length) throw new HieraError(`Syntax error in '${text}'`);
  return t as PType;
}
