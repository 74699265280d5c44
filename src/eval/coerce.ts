/**
 * Fitting a computed value to the type a `vars` promise declares, as 3.21
 * does: numbers are read with CFEngine's suffixes (and reals printed with
 * six decimals), a scalar becomes a one-item list, a JSON string becomes a
 * container. Shared by pre-evaluation and the agent's `vars` promises.
 */
import { formatReal, parseCfInt, parseCfReal } from "./numbers.js";
import { type Value, data, isList, isScalar, list, scalar, isJsonContainer } from "./values.js";
import { jsonToStrings } from "./values.js";
import { parseYamlText } from "./functions/data-files.js";
import { parseJsonText } from "./functions/json-text.js";

export const VAR_TYPES = ["string", "int", "real", "slist", "ilist", "rlist", "data"] as const;
export type VarType = (typeof VAR_TYPES)[number];

export function isVarType(name: string): name is VarType {
  return (VAR_TYPES as readonly string[]).includes(name);
}

/** Fits a computed value to the declared type; undefined when it does not fit. */
export function coerce(type: VarType, value: Value): Value | undefined {
  switch (type) {
    case "string":
      return isScalar(value) ? scalar(value.value) : undefined;
    case "int": {
      if (!isScalar(value)) return undefined;
      const n = parseCfInt(value.value);
      return n === undefined ? undefined : scalar(String(n), "int");
    }
    case "real": {
      if (!isScalar(value)) return undefined;
      const n = parseCfReal(value.value);
      return n === undefined ? undefined : scalar(formatReal(n), "real");
    }
    case "slist":
    case "ilist":
    case "rlist":
      if (isList(value)) return list(value.value, type);
      if (isScalar(value)) return list([value.value], type);
      return Array.isArray(value.value) ? list(jsonToStrings(value.value) ?? [], type) : undefined;
    case "data":
      return toData(value);
  }
}

/**
 * A data value: a container as is, a list as an array, and text as 3.21's
 * parser turns a `data` string: `---...` is YAML (parseyaml), anything else
 * JSON (parsejson, lenient); only a container counts.
 */
function toData(value: Value): Value | undefined {
  if (value.type === "data") return value;
  if (isList(value)) return data([...value.value]);
  const text = value.value;
  const parsed = text.length > 3 && text.startsWith("---") ? parseYamlText(text) : parseJsonText(text);
  return parsed !== undefined && isJsonContainer(parsed) ? data(parsed) : undefined;
}
