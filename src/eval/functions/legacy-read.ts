/**
 * First versions of readjson, readdata (JSON) and readstringlist, kept so
 * loading keeps working until the data family registers its complete ones
 * (registered first, so any later registration of these names wins).
 */
import { readFileSync } from "node:fs";
import { type JsonValue, type Value, data, list } from "../values.js";
import { compileRegex, integer, text } from "./args.js";
import { type BuiltinFunction, defineFunction } from "./types.js";

function readText(path: string | undefined, max?: number): string | undefined {
  if (path === undefined) return undefined;
  try {
    const content = readFileSync(path, "utf8");
    return max !== undefined && max > 0 ? content.slice(0, max) : content;
  } catch {
    return undefined;
  }
}

function parseJsonText(raw: string | undefined): Value | undefined {
  if (raw === undefined) return undefined;
  try {
    return data(JSON.parse(raw) as JsonValue);
  } catch {
    return undefined;
  }
}

function readStringList([path, comment, split, maxEntries, maxSize]: readonly Value[]): Value | undefined {
  const content = readText(text(path), integer(maxSize));
  const splitter = compileRegex(text(split) ?? "\n", "g");
  if (content === undefined || !splitter) return undefined;
  const commentPattern = text(comment) ?? "";
  const commentRegex = commentPattern === "" ? undefined : compileRegex(commentPattern, "gm");
  const cleaned = commentRegex ? content.replace(commentRegex, "") : content;
  const items = cleaned.split(splitter).filter((s) => s !== "");
  return list(items.slice(0, integer(maxEntries) ?? items.length));
}

export const legacyReadFunctions: readonly BuiltinFunction[] = [
  defineFunction("readjson", 1, 2, ([path, max]) => parseJsonText(readText(text(path), integer(max)))),
  defineFunction("readdata", 2, 2, ([path, format]) => {
    const kind = text(format);
    const raw = readText(text(path));
    return kind === "JSON" || (kind === "auto" && text(path)?.endsWith(".json"))
      ? parseJsonText(raw)
      : undefined;
  }),
  defineFunction("readstringlist", 5, 5, (args) => readStringList(args)),
];
