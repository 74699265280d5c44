/**
 * Readers of files and text into lists, classic arrays and data:
 * readjson, readyaml, readcsv, readenvfile, readdata, readstringlist,
 * readintlist, readreallist, read{string,int,real}array(idx),
 * parse{string,int,real}array(idx), data_readstringarray(idx).
 * Synchronous: they run while a policy is evaluated. A missing file or a
 * value that does not convert makes the call fail (undefined).
 */
import { createRequire } from "node:module";
import { fromByteString, toByteString } from "../regex/bytes.js";
import { type JsonValue, type ScalarType, type Value, data, list, scalar } from "../values.js";
import { parseVarRef } from "../var-ref.js";
import { integer, text } from "./args.js";
import { splitByRegex, stripPatterns } from "./cf-regex.js";
import { cfReadFile, readFileText } from "./file-read.js";
import { parseJsonContainer } from "./json-text.js";
import { emitFunctionMessage } from "./messages.js";
import { doubleFromString, intFromString, intNumber } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

/** The YAML library, loaded on first use: most runs never read YAML, and loading it costs startup time. */
function loadYaml(): typeof import("yaml") {
  return createRequire(import.meta.url)("yaml") as typeof import("yaml");
}

/** A file's text, at most `max` bytes of it (0 or less: all); no messages (the data readers). */
function readText(path: string | undefined, max?: number): string | undefined {
  if (path === undefined) return undefined;
  return readFileText(path, max !== undefined && max > 0 ? max : 0);
}

/** A scalar argument as 3.21's `IntFromString` reads it (the limits of the readers). */
function limit(value: Value | undefined): number {
  return intNumber(text(value)) ?? -678;
}

/** A token converted as the list and array readers store it; undefined when it is no number. */
function convertToken(token: string, type: ScalarType): string | undefined {
  if (type === "int") {
    const value = intFromString(token);
    return value === undefined ? undefined : String(value);
  }
  if (type === "real") return doubleFromString(token) === undefined ? undefined : token;
  return token;
}

/** read{string,int,real}list: the file, comments stripped, split at a regex; blanks dropped. */
function readList(args: readonly Value[], fc: FunctionContext, type: ScalarType): Value | undefined {
  const [path, comment, split] = args.map(text);
  if (path === undefined) return undefined;
  const content = cfReadFile(fc, path, Math.max(0, limit(args[4])));
  if (content === undefined) return undefined;
  const items = splitByRegex(stripPatterns(content, comment ?? ""), split ?? "", limit(args[3]), false);
  for (const item of items) {
    if (convertToken(item, type) !== undefined) continue;
    const message = `Presumed ${type} value '${item}' read from file '${path}' has no recognizable value`;
    emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
    return undefined;
  }
  return list(items, type === "int" ? "ilist" : type === "real" ? "rlist" : "slist");
}

/**
 * Lines as 3.21's `RlistFromSplitString(text, '\n')` gives them: a
 * backslash before a newline joins the lines (and is dropped).
 */
function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines: string[] = [];
  let current = "";
  for (let i = 0; i < content.length; i++) {
    const ch = content[i];
    if (ch === "\\" && content[i + 1] === "\n") {
      current += "\n";
      i++;
    } else if (ch === "\n") {
      lines.push(current);
      current = "";
    } else current += ch;
  }
  if (current !== "") lines.push(current);
  return lines;
}

/** Non-blank lines split into fields (blank fields kept), at most `maxEntries` lines; `\r` endings dropped. */
function tableRows(content: string, split: string, maxEntries: number): string[][] {
  const rows: string[][] = [];
  for (const raw of splitLines(content)) {
    if (rows.length >= maxEntries) break;
    if (raw === "" || raw === "\r") continue;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    rows.push(splitByRegex(line, split, 99999, true));
  }
  return rows;
}

/**
 * Stores `name[key][i]` (or `name[row][i]`) entries in the caller's bundle
 * as 3.21's `BuildLineArray`; the number of lines read. The key of a row is
 * its first field, converted.
 */
function buildArray(
  fc: FunctionContext,
  arrayName: string,
  content: string,
  args: readonly Value[],
  type: ScalarType,
  byIndex: boolean,
): number | undefined {
  const rows = tableRows(stripPatterns(content, text(args[2]) ?? ""), text(args[3]) ?? "", limit(args[4]));
  const base = parseVarRef(arrayName);
  const converted: string[][] = [];
  for (const row of rows) {
    const values = row.map((token) => convertToken(token, type));
    if (values.some((v) => v === undefined)) {
      const message = `Could not convert token to ${type === "int" ? "int" : "double"}`;
      emitFunctionMessage(fc.ctx, "error", fc.call.name, message);
      return undefined;
    }
    converted.push(values as string[]);
  }
  converted.forEach((row, r) => {
    const key = byIndex ? String(r) : (row[0] ?? "");
    row.forEach((value, i) => {
      const ref = { ...base, indices: [...base.indices, key, String(i)] };
      fc.ctx.setVariable(ref, scalar(value, type));
    });
  });
  return rows.length;
}

function arrayReader(name: string, type: ScalarType, byIndex: boolean, fromFile: boolean): BuiltinFunction {
  return defineFunction(name, 6, 6, (args, fc) => {
    const arrayName = text(args[0]);
    const source = text(args[1]);
    if (arrayName === undefined || source === undefined) return undefined;
    const max = limit(args[5]);
    const content = fromFile ? cfReadFile(fc, source, Math.max(0, max)) : sliceBytes(source, max);
    const entries = content === undefined ? 0 : buildArray(fc, arrayName, content, args, type, byIndex);
    return entries === undefined ? undefined : scalar(String(entries), "int");
  });
}

/** `strndup(text, max)`: at most `max` bytes of the text. */
function sliceBytes(source: string, max: number): string {
  if (max < 0) return source;
  const bytes = toByteString(source);
  return bytes.length <= max ? source : fromByteString(bytes.slice(0, max));
}

/** data_readstringarray(idx): lines split into fields, as an object by first field or an array of rows. */
function dataTable(args: readonly Value[], fc: FunctionContext, asArrays: boolean): Value | undefined {
  const path = text(args[0]);
  if (path === undefined) return undefined;
  const content = cfReadFile(fc, path, Math.max(0, limit(args[4])));
  if (content === undefined) {
    emitFunctionMessage(fc.ctx, "error", fc.call.name, `${fc.call.name}: error reading from file '${path}'`);
    return undefined;
  }
  const rows = tableRows(stripPatterns(content, text(args[1]) ?? ""), text(args[2]) ?? "", limit(args[3]));
  if (asArrays) return data(rows);
  const out: Record<string, JsonValue> = {};
  for (const row of rows) out[row[0]] = row.slice(1);
  return data(out);
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
  defineFunction("readstringlist", 5, 5, (args, fc) => readList(args, fc, "string")),
  defineFunction("readintlist", 5, 5, (args, fc) => readList(args, fc, "int")),
  defineFunction("readreallist", 5, 5, (args, fc) => readList(args, fc, "real")),
  arrayReader("readstringarray", "string", false, true),
  arrayReader("readstringarrayidx", "string", true, true),
  arrayReader("readintarray", "int", false, true),
  arrayReader("readrealarray", "real", false, true),
  arrayReader("parsestringarray", "string", false, false),
  arrayReader("parsestringarrayidx", "string", true, false),
  arrayReader("parseintarray", "int", false, false),
  arrayReader("parserealarray", "real", false, false),
  defineFunction("data_readstringarray", 5, 5, (args, fc) => dataTable(args, fc, false)),
  defineFunction("data_readstringarrayidx", 5, 5, (args, fc) => dataTable(args, fc, true)),
];
