/**
 * `defaults` promises: give a variable (usually a bundle parameter) a value
 * when it is undefined, empty, or matches `if_match_regex`.
 */
import { isList } from "../eval/values.js";
import { parseVarRef } from "../eval/var-ref.js";
import { boundedRegExp } from "../eval/regex/watchdog.js";
import type { PromiseType } from "./contract.js";
import { asText } from "./values.js";
import { VAR_TYPES, coerce } from "./vars.js";

export const defaultsPromiseType: PromiseType = {
  name: "defaults",
  evaluate(promise, env) {
    const type = VAR_TYPES.find((t) => promise.raw(t) !== undefined);
    if (!type) return "skipped";
    const ref = parseVarRef(promise.promiser);
    const target = { ns: null, scope: null, name: ref.name, indices: ref.indices };
    const current = env.ctx.getVariable(target);
    const regex = asText(promise.value("if_match_regex"));
    let needed = current === undefined;
    if (current && !needed) {
      const text = isList(current) ? current.value.join("") : current.type === "data" ? "" : current.value;
      needed = regex !== undefined ? boundedRegExp(`^(?:${regex})$`).test(text) : text === "";
    }
    if (!needed) return "kept";
    const computed = promise.value(type);
    const value = computed && coerce(type, computed);
    if (!value) return "failed";
    env.ctx.setVariable(target, value);
    // 3.21 audits a defaults promise only when it sets the value.
    env.audit?.("kept");
    return "kept";
  },
};
