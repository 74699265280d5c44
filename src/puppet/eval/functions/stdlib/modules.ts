/**
 * Native implementations of the Ruby functions of the modules tend compiles
 * that are not stdlib's: saz-sudo 9.0.2's `sudo::defaults` (called by its
 * sudoers templates through `scope.call_function`).
 */
import { floatToS } from "../../../erb/ruby-values.js";
import { PHash, type PValue } from "../../values.js";
import { FunctionError, type PuppetFunction } from "../registry.js";

function rubyToS(v: PValue): string {
  if (v === undefined) return "";
  if (typeof v === "number") return floatToS(v);
  return String(v);
}

/**
 * `sudo::defaults(*tuples)`: each `[key, config]` gives `Defaults\t<key>`,
 * then config's `list`, then `<operator><value>` (operator `=` by default,
 * string values double-quoted), and a newline.
 */
const sudoDefaults: PuppetFunction = (_ctx, args) => {
  let out = "";
  for (const tuple of args) {
    if (!Array.isArray(tuple) || tuple.length !== 2)
      throw new FunctionError(`Unsupported number of arguments ${args.length}`);
    const [key, config] = tuple;
    let entry = `Defaults\t${rubyToS(key)}`;
    if (config instanceof PHash) {
      if (config.has("list")) entry += rubyToS(config.get("list"));
      const operator = config.has("operator") ? rubyToS(config.get("operator")) : "=";
      if (config.has("value")) {
        const v = config.get("value");
        entry += operator + (typeof v === "string" ? `"${v}"` : rubyToS(v));
      }
    }
    out += `${entry}\n`;
  }
  return out;
};

export const moduleFunctions: ReadonlyMap<string, PuppetFunction> = new Map([
  ["sudo::defaults", sudoDefaults],
]);
