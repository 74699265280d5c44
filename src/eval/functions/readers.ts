/**
 * Readers of files and text into lists, classic arrays and data:
 * readjson, readyaml, readcsv, readenvfile, readdata, readstringlist,
 * readintlist, readreallist, read{string,int,real}array(idx),
 * parse{string,int,real}array(idx), data_readstringarray(idx).
 * Synchronous: they run while a policy is evaluated. A missing file or a
 * value that does not convert makes the call fail (undefined).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type JsonValue, type ScalarType, type Value, data, list, scalar } from "../values.js";
import { integer, text } from "./args.js";
import { parseJsonContainer } from "./json-text.js";
import { leadingNumber } from "./sorting.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

/** The YAML library, loaded on first use: most runs never read YAML, and loading it costs startup time. */
function loadYaml(): typeof import("yaml") {
  return createRequire(import.meta.url)("yaml") as typeof import("yaml");
}

/** A file's text, at most `max` bytes of it (0 or less: all). */
function readText(path: string | undefined, max?: number): string | undefined {
  if (path === undefined) return undefined;
  try {
    const bytes = readFileSync(path);
    return (max !== undefined && max > 0 ? bytes.subarray(0, max) : bytes).toString("utf8");
  } catch {
    return undefined;
  }
}

/** Removes every match of the comment regex, as 3.21's StripPatterns. */
function stripComments(content: string, pattern: string | undefined): string {
  if (!pattern) return content;
  try {
    return content.replace(new RegExp(pattern, "g"), "");
  } catch {
    return content;
  }
}

function splitRegex(content: string, pattern: string, blanks: boolean): string[] | undefined {
  try {
    const parts = content.split(new RegExp(pattern));
    return blanks ? parts : parts.filter((p) => p !== "");
  } catch {
    return undefined;
  }
}

const INT_TEXT = /^\s*[+-]?\d+\s*$/;

/** Whether a token converts to the type as 3.21's IntFromString/DoubleFromString accept. */
function converts(token: string, type: ScalarType): boolean {
  if (type === "int") return INT_TEXT.test(token) || /^\s*[+-]?\d+[kKmMgG%]\s*$/.test(token);
  if (type === "real") return leadingNumber(token) !== undefined && /^\s*[+-]?[\d.]/.test(token);
  return true;
}

function readList(args: readonly Value[], type: ScalarType): Value | undefined {
  const [path, comment, split, maxEntries, maxSize] = args;
  const content = readText(text(path), integer(maxSize));
  if (content === undefined) return undefined;
  const items = splitRegex(stripComments(content, text(comment)), text(split) ?? "\n", false);
  if (!items) return undefined;
  const kept = items.slice(0, Math.max(0, integer(maxEntries) ?? items.length));
  if (!kept.every((t) => converts(t, type))) return undefined;
  return list(kept, type === "int" ? "ilist" : type === "real" ? "rlist" : "slist");
}

/** Lines of the text split into fields; blank lines are skipped, `\r` endings dropped. */
function tableRows(content: string, split: string, maxEntries: number): string[][] | undefined {
  const rows: string[][] = [];
  for (const raw of content.split("\n")) {
    if (rows.length >= maxEntries) break;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line === "") continue;
    const fields = splitRegex(line, split, true);
    if (!fields) return undefined;
    rows.push(fields);
  }
  return rows;
}

/** Builds `name[key][i]` (or `name[row][i]`) entries; the count of rows, or undefined on a bad token. */
function buildArray(
  fc: FunctionContext,
  args: readonly Value[],
  content: string | undefined,
  type: ScalarType,
  byIndex: boolean,
): Value | undefined {
  const [name, , comment, split, maxEntries] = args;
  const arrayName = text(name);
  if (arrayName === undefined) return undefined;
  if (content === undefined) return scalar("0", "int");
  const rows = tableRows(
    stripComments(content, text(comment)),
    text(split) ?? "\n",
    integer(maxEntries) ?? 0,
  );
  if (!rows) return undefined;
  if (rows.some((row) => !row.every((t) => converts(t, type)))) return undefined;
  for (const [r, row] of rows.entries()) {
    const key = byIndex ? String(r) : row[0];
    for (const [i, token] of row.entries()) {
      const value = type === "int" ? String(Number.parseInt(token, 10)) : token;
      fc.ctx.setVariable(
        { ns: null, scope: null, name: arrayName, indices: [key, String(i)] },
        scalar(value, type),
      );
    }
  }
  return scalar(String(rows.length), "int");
}

function arrayReader(name: string, type: ScalarType, byIndex: boolean, fromFile: boolean): BuiltinFunction {
  return defineFunction(name, 6, 6, (args, fc) => {
    const source = text(args[1]);
    const max = integer(args[5]);
    const content = fromFile ? readText(source, max) : source?.slice(0, max && max > 0 ? max : undefined);
    return buildArray(fc, args, content, type, byIndex);
  });
}

function dataTable(args: readonly Value[], asArrays: boolean): Value | undefined {
  const [path, comment, split, maxEntries, maxSize] = args;
  const content = readText(text(path), integer(maxSize));
  if (content === undefined) return undefined;
  const rows = tableRows(
    stripComments(content, text(comment)),
    text(split) ?? "\n",
    integer(maxEntries) ?? 0,
  );
  if (!rows) return undefined;
  if (asArrays) return data(rows);
  return data(Object.fromEntries(rows.map((row) => [row[0], row.slice(1)])));
}

// --- YAML, CSV, env files ----------------------------------------------------

/**
 * The first YAML document as data, read with YAML 1.1 scalars (`yes` is
 * true) as 3.21's libyaml reader does; aliases are dropped. Scalars at the
 * top level and empty documents fail.
 */
export function parseYamlText(source: string): JsonValue | undefined {
  const { isAlias, parseAllDocuments, visit } = loadYaml();
  const [doc] = parseAllDocuments(source, { version: "1.1", uniqueKeys: false });
  if (!doc || !("contents" in doc)) return undefined;
  // 3.21 leaves out members whose value is an alias.
  visit(doc, { Pair: (_, pair) => (isAlias(pair.value) ? visit.REMOVE : undefined) });
  const json = doc.toJS({ maxAliasCount: -1 }) as JsonValue;
  return json !== null && typeof json === "object" ? dropUndefined(json) : undefined;
}

function dropUndefined(json: JsonValue): JsonValue {
  if (json === null || typeof json !== "object") return json;
  if (Array.isArray(json)) return json.filter((v) => v !== undefined).map(dropUndefined);
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(json)) if (v !== undefined) out[k] = dropUndefined(v);
  return out;
}

/** RFC 4180 records separated by CRLF; a record with a stray quote is dropped. */
export function parseCsv(content: string): string[][] {
  const rows: string[][] = [];
  const records = content.split("\r\n");
  if (records[records.length - 1] === "") records.pop();
  for (let i = 0; i < records.length; i++) {
    let record = records[i];
    // A quoted field may hold CRLF: join records until quotes balance.
    while ((record.match(/"/g)?.length ?? 0) % 2 === 1 && i + 1 < records.length)
      record += `\r\n${records[++i]}`;
    const fields = csvFields(record);
    if (fields) rows.push(fields);
  }
  return rows;
}

function csvFields(record: string): string[] | undefined {
  const fields: string[] = [];
  let at = 0;
  for (;;) {
    if (record[at] === '"') {
      const match = /^"((?:[^"]|"")*)"/.exec(record.slice(at));
      if (!match) return undefined;
      fields.push(match[1].replaceAll('""', '"'));
      at += match[0].length;
    } else {
      const end = record.indexOf(",", at);
      const field = record.slice(at, end === -1 ? undefined : end);
      if (field.includes('"')) return undefined;
      fields.push(field);
      at += field.length;
    }
    if (at >= record.length) return fields;
    if (record[at] !== ",") return undefined;
    at++;
  }
}

/** `KEY=VALUE` lines; keys and values trimmed, one layer of quotes removed. */
export function parseEnvFile(content: string): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const raw of content.split("\n")) {
    const line = raw.trim();
    const eq = line.indexOf("=");
    if (line.startsWith("#") || eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value) && value.length >= 2) value = value.slice(1, -1);
    out[key] = value;
  }
  return out;
}

type DataFormat = "JSON" | "YAML" | "CSV" | "ENV";

function parseFormat(content: string, format: DataFormat): JsonValue | undefined {
  if (format === "YAML") return parseYamlText(content);
  if (format === "CSV") return parseCsv(content);
  if (format === "ENV") return parseEnvFile(content);
  return parseJsonContainer(content);
}

function guessFormat(path: string): DataFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "YAML";
  if (lower.endsWith(".csv")) return "CSV";
  if (lower.endsWith(".env")) return "ENV";
  return "JSON";
}

function fileReader(name: string, format: DataFormat): BuiltinFunction {
  return defineFunction(name, 1, 2, ([path, max]) => {
    const content = readText(text(path), integer(max));
    const json = content === undefined ? undefined : parseFormat(content, format);
    return json === undefined ? undefined : data(json);
  });
}

function readData([path, format]: readonly Value[]): Value | undefined {
  const file = text(path);
  const requested = text(format);
  if (file === undefined || requested === undefined) return undefined;
  const kind = requested === "auto" ? guessFormat(file) : requested;
  if (!["JSON", "YAML", "CSV", "ENV"].includes(kind)) return undefined;
  const content = readText(file);
  const json = content === undefined ? undefined : parseFormat(content, kind as DataFormat);
  return json === undefined ? undefined : data(json);
}

export const readerFunctions: readonly BuiltinFunction[] = [
  fileReader("readjson", "JSON"),
  fileReader("readyaml", "YAML"),
  fileReader("readcsv", "CSV"),
  fileReader("readenvfile", "ENV"),
  defineFunction("readdata", 2, 2, readData),
  defineFunction("readstringlist", 5, 5, (args) => readList(args, "string")),
  defineFunction("readintlist", 5, 5, (args) => readList(args, "int")),
  defineFunction("readreallist", 5, 5, (args) => readList(args, "real")),
  arrayReader("readstringarray", "string", false, true),
  arrayReader("readstringarrayidx", "string", true, true),
  arrayReader("readintarray", "int", false, true),
  arrayReader("readrealarray", "real", false, true),
  arrayReader("parsestringarray", "string", false, false),
  arrayReader("parsestringarrayidx", "string", true, false),
  arrayReader("parseintarray", "int", false, false),
  arrayReader("parserealarray", "real", false, false),
  defineFunction("data_readstringarray", 5, 5, (args) => dataTable(args, false)),
  defineFunction("data_readstringarrayidx", 5, 5, (args) => dataTable(args, true)),
];
