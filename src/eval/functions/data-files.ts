/**
 * Data files read into containers as 3.21's `JsonReadDataFile` does:
 * readjson, readyaml, readcsv, readenvfile and readdata (which takes the
 * format by name, or from the file's suffix with "auto"). JSON and YAML
 * failures are logged with
 * 3.21's wording; CSV and ENV files that cannot be opened fail quietly.
 */
import { createRequire } from "node:module";
import { type JsonNumber, parsedJsonNumber } from "../json-numbers.js";
import { type JsonValue, type Value, data, isJsonContainer } from "../values.js";
import { text } from "./args.js";
import { csvRecords, parseCsv, parseCsvRecord } from "./csv.js";
import { readFileResult } from "./file-read.js";
import { MAX_JSON_DEPTH, parseJsonText, unstorableNumberIn } from "./json-text.js";
import { emitFunctionMessage } from "./messages.js";
import { CF_INFINITY, intFromString } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

type DataFormat = "JSON" | "YAML" | "CSV" | "ENV";

/** The YAML library, loaded on first use: most runs never read YAML, and loading it costs startup time. */
function loadYaml(): typeof import("yaml") {
  return createRequire(import.meta.url)("yaml") as typeof import("yaml");
}

/**
 * The first YAML document as data, as 3.21 builds it from libyaml's events:
 * keys stay text; plain values become null (`~`, `null`, empty), booleans
 * (YAML 1.1 words: `yes`, `on`, `y`...) or numbers (when they start with a
 * JSON number: `200 300` is 200), anything else a string; quoted and block
 * values stay strings. Aliases are left out. Undefined for an empty stream.
 */
export function parseYamlValue(source: string): JsonValue | undefined {
  // The YAML library recurses once per level: past the stack it can bring
  // the process down (V8 fails fatally compiling a regex with no stack left).
  if (mayNestDeeperThan(source, MAX_JSON_DEPTH)) return undefined;
  const { parseDocument } = loadYaml();
  const doc = parseDocument(source, { schema: "failsafe", version: "1.1", uniqueKeys: false });
  if (doc.contents === null) return source.trim() === "" ? undefined : null;
  return yamlNode(doc.contents);
}

/**
 * Whether YAML text may nest deeper than `limit`: its flow brackets, or a
 * line's indentation and leading `- ` items (each may open a level). It
 * overcounts (brackets in quotes count), never undercounts.
 */
function mayNestDeeperThan(source: string, limit: number): boolean {
  let flow = 0;
  let lineStart = true;
  let block = 0;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (lineStart) {
      if (ch === " " || ch === "-" || ch === "?" || ch === ":") {
        if (++block > limit) return true;
        continue;
      }
      lineStart = false;
    }
    if (ch === "\n") {
      lineStart = true;
      block = 0;
    } else if (ch === "[" || ch === "{") {
      if (++flow > limit) return true;
    } else if ((ch === "]" || ch === "}") && flow > 0) flow--;
  }
  return false;
}

function yamlNode(node: unknown): JsonValue | undefined {
  const { isMap, isScalar, isSeq } = loadYaml();
  if (isMap(node)) {
    const out: Record<string, JsonValue> = {};
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      const value = pair.value === null ? null : yamlNode(pair.value);
      if (value === undefined) continue;
      delete out[key];
      out[key] = value;
    }
    return out;
  }
  if (isSeq(node)) {
    const out: JsonValue[] = [];
    for (const item of node.items) {
      const value = item === null ? null : yamlNode(item);
      if (value !== undefined) out.push(value);
    }
    return out;
  }
  if (isScalar(node)) return yamlScalar(String(node.value), node.type === "PLAIN", node.tag);
  return undefined;
}

const YAML_TAG = "tag:yaml.org,2002:";
const YAML_TRUE = new Set(["y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"]);
const YAML_FALSE = new Set(["n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"]);

/** A scalar value as 3.21 converts it (its tag explicit or none). */
function yamlScalar(value: string, plainStyle: boolean, tag: string | undefined): JsonValue {
  const plain = plainStyle && tag === undefined;
  const quoted = !plainStyle && tag === undefined;
  if ((plain || tag === `${YAML_TAG}null`) && ["", "~", "null", "Null", "NULL"].includes(value)) return null;
  if (!quoted && (plain || tag === `${YAML_TAG}bool`)) {
    if (YAML_TRUE.has(value)) return true;
    if (YAML_FALSE.has(value)) return false;
  }
  if (!quoted && (plain || tag === `${YAML_TAG}int` || tag === `${YAML_TAG}float`)) {
    const number = leadingJsonNumber(value);
    if (number !== undefined) return number;
  }
  return value;
}

/**
 * The JSON number at the start of a text, up to a blank, `,`, `]` or `}`,
 * as 3.21's JSON number reader takes it and a variable holds it (`1.0`
 * stays a real); undefined when that part is not a valid number.
 */
function leadingJsonNumber(text: string): JsonNumber | undefined {
  const end = text.search(/[ \t\n\r,\]}]/);
  const token = end === -1 ? text : text.slice(0, end);
  const valid = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(token);
  return valid ? parsedJsonNumber(token, false) : undefined;
}

/** Like `parseYamlValue`, but only an array or an object counts (parseyaml, readyaml). */
export function parseYamlText(source: string): JsonValue | undefined {
  const json = parseYamlValue(source);
  return isJsonContainer(json) ? json : undefined;
}

/** The value part of an env line, as 3.21's filter: quotes and `\` escapes; undefined when invalid. */
function envValue(raw: string): string | undefined {
  const opening = raw[0] === '"' || raw[0] === "'" ? raw[0] : "";
  let out = "";
  for (let i = opening ? 1 : 0; i < raw.length; i++) {
    const ch = raw[i];
    if (opening !== "" && ch === opening) break;
    // An unquoted value may not hold an unescaped quote.
    if (opening === "" && (ch === '"' || ch === "'")) return undefined;
    if (ch === "\\") {
      i++;
      if (i >= raw.length) break;
      out += raw[i] === "n" ? "\n" : raw[i];
    } else out += ch;
  }
  return out;
}

/**
 * `KEY=VALUE` lines (`#` comments and lines without a key skipped; keys and
 * values trimmed; a later key replaces an earlier one), reading at most
 * `max` bytes of lines.
 */
export function parseEnvFile(content: string, max = Number.POSITIVE_INFINITY): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  let bytes = 0;
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const raw of lines) {
    bytes += Buffer.byteLength(raw);
    if (bytes > max) break;
    const line = raw.trim();
    const eq = line.indexOf("=");
    if (line === "" || line.startsWith("#") || eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = envValue(line.slice(eq + 1).trim());
    if (value === undefined) continue;
    delete out[key];
    out[key] = value;
  }
  return out;
}

/** CSV records, at most `max` bytes of them. */
function parseCsvLimited(content: string, max: number): JsonValue {
  if (Buffer.byteLength(content) <= max) return parseCsv(content);
  // Cut before the record that passes the limit (3.21 counts whole records).
  let bytes = 0;
  let end = 0;
  for (const record of content.split(/(?<=\r\n)/)) {
    bytes += Buffer.byteLength(record);
    if (bytes > max) break;
    end += record.length;
  }
  return parseCsv(content.slice(0, end));
}

function formatFromSuffix(path: string): DataFormat {
  const lower = path.toLowerCase();
  if (lower.endsWith(".csv")) return "CSV";
  if (lower.endsWith(".yaml") || lower.endsWith(".yml")) return "YAML";
  if (lower.endsWith(".env")) return "ENV";
  return "JSON";
}

const FORMAT_NAMES: ReadonlySet<string> = new Set(["JSON", "YAML", "CSV", "ENV"]);

/** Reads and parses a data file; undefined (after 3.21's message) when it cannot. */
function readDataFile(
  fc: FunctionContext,
  path: string,
  format: DataFormat,
  max: number,
): JsonValue | undefined {
  const fn = fc.call.name;
  const read = readFileResult(
    path,
    format === "CSV" || format === "ENV" || max >= CF_INFINITY_NUMBER ? 0 : max,
  );
  if (!read.ok) {
    if (format === "CSV" || format === "ENV") return undefined;
    const message = `${fn}: data error parsing ${format} file '${path}': ${read.reason}`;
    emitFunctionMessage(fc.ctx, "error", fn, message);
    return undefined;
  }
  if (format === "CSV") return parseCsvLimited(read.text, max);
  if (format === "ENV") return parseEnvFile(read.text, max);
  if (read.text.trim() === "") {
    emitFunctionMessage(fc.ctx, "error", fn, `${fn}: data error parsing ${format} file '${path}': No data`);
    return undefined;
  }
  const json = format === "YAML" ? parseYamlValue(read.text) : parseJsonText(read.text);
  if (json === undefined) {
    const message = `${fn}: error parsing ${format} file '${path}': ${jsonErrorReason(read.text)}`;
    emitFunctionMessage(fc.ctx, "error", fn, message);
    return undefined;
  }
  // 3.21 stops when it copies a number it cannot store into the variable.
  const problem = format === "YAML" ? undefined : unstorableNumberIn(read.text);
  if (problem) {
    emitFunctionMessage(fc.ctx, "fatal", fn, problem);
    return undefined;
  }
  if (!isJsonContainer(json)) {
    emitFunctionMessage(fc.ctx, "error", fn, `${fn}: non-container from parsing ${format} file '${path}'`);
    return undefined;
  }
  return json;
}

const CF_INFINITY_NUMBER = Number(CF_INFINITY);

/** The gist of why JSON text does not parse, in 3.21's words where the cause is plain. */
function jsonErrorReason(source: string): string {
  const first = source.trimStart()[0];
  if (first !== "{" && first !== "[" && first !== '"') {
    return "Unwilling to parse json data starting with invalid character";
  }
  return first === "{"
    ? "Unable to parse json data as object, unrecognized token beginning entry"
    : "Unable to parse json data as array, did not end with ']'";
}

function fileReader(name: string, format: DataFormat): BuiltinFunction {
  return defineFunction(name, 1, 2, ([path, maxArg], fc) => {
    const file = text(path);
    if (file === undefined) return undefined;
    const max =
      maxArg === undefined ? CF_INFINITY_NUMBER : Number(intFromString(text(maxArg) ?? "") ?? -678n);
    const json = readDataFile(fc, file, format, max);
    return json === undefined ? undefined : data(json);
  });
}

function readData([path, mode]: readonly Value[], fc: FunctionContext): Value | undefined {
  const file = text(path);
  const requested = text(mode);
  if (file === undefined || requested === undefined) return undefined;
  if (requested !== "auto" && !FORMAT_NAMES.has(requested)) {
    // 3.21 checks the argument against its allowed values and stops the run.
    const message = `In function 'readdata', error in variable '${requested}', 'Selection is out of bounds'`;
    emitFunctionMessage(fc.ctx, "error", "readdata", message);
    return undefined;
  }
  const format = requested === "auto" ? formatFromSuffix(file) : (requested as DataFormat);
  if (requested === "auto") {
    const message = `readdata: automatically selected data type ${format} from filename ${file}`;
    emitFunctionMessage(fc.ctx, "verbose", "readdata", message);
  }
  const json = readDataFile(fc, file, format, CF_INFINITY_NUMBER);
  return json === undefined ? undefined : data(json);
}

/** A column index as 3.21 reads it (a size_t: negative or invalid numbers are out of every bound). */
function columnIndex(raw: string | undefined): number {
  const value = intFromString(raw ?? "") ?? -678n;
  return value < 0n ? Number.MAX_SAFE_INTEGER : Number(value);
}

/**
 * classfiltercsv(file, has_heading, class_column[, sort_column]): the CSV
 * rows whose class expression holds, without that column, as objects keyed
 * by the heading (or by position), optionally sorted by a column.
 */
function classFilterCsv(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const [path, heading, classArg, sortArg] = args.map(text);
  if (path === undefined) return undefined;
  const warn = (level: "error" | "warning", message: string) =>
    emitFunctionMessage(fc.ctx, level, "classfiltercsv", `classfiltercsv: ${message}`);
  const read = readFileResult(path);
  if (!read.ok) {
    warn("error", `Failed to read file ${path}: ${read.reason}`);
    return undefined;
  }
  const hasHeading = /^(true|yes|on)$/.test(heading ?? "");
  const classIndex = columnIndex(classArg);
  let names: string[] | undefined;
  let columns = 0;
  const rows: string[][] = [];
  for (const [n, record] of csvRecords(read.text).entries()) {
    if (record.startsWith("#")) continue;
    const fields = parseCsvRecord(record);
    if (!fields) {
      warn("warning", `Failed to parse line ${n + 1}, line ignored.`);
      continue;
    }
    if (fields.length === 1 && fields[0] === "") continue;
    if (columns === 0) {
      columns = fields.length;
      if (classIndex >= columns) {
        warn("error", `Class expression index is out of bounds. Row length ${columns}, index ${classIndex}`);
        return undefined;
      }
    } else if (fields.length !== columns) {
      const message = `Line ${n + 1} has incorrect amount of elements, ${fields.length} instead of ${columns}. Line ignored.`;
      warn("warning", message);
      continue;
    }
    const rest = fields.filter((_, i) => i !== classIndex);
    if (hasHeading && names === undefined) names = rest;
    else if (fc.ctx.checkExpression(fields[classIndex])) rows.push(rest);
  }
  const objects = rows.map((row) => Object.fromEntries(row.map((v, i) => [names ? names[i] : String(i), v])));
  if (sortArg !== undefined) sortRows(objects, columnIndex(sortArg), classIndex, columns, warn);
  return data(objects);
}

function sortRows(
  rows: Record<string, string>[],
  sortIndex: number,
  classIndex: number,
  columns: number,
  warn: (level: "warning", message: string) => void,
): void {
  if (sortIndex === classIndex) {
    const message = `sorting column (${sortIndex}) is the same as class expression column (${classIndex}). Not sorting data container.`;
    warn("warning", message);
    return;
  }
  if (sortIndex >= columns) {
    warn("warning", `sorting index ${sortIndex} out of bounds. Not sorting data container.`);
    return;
  }
  // The class column is gone from the rows.
  const at = sortIndex > classIndex ? sortIndex - 1 : sortIndex;
  const key = (row: Record<string, string>) => Object.values(row)[at] ?? "";
  rows.sort((a, b) => Buffer.compare(Buffer.from(key(a)), Buffer.from(key(b))));
}

export const dataFileFunctions: readonly BuiltinFunction[] = [
  defineFunction("classfiltercsv", 3, 4, classFilterCsv),
  fileReader("readjson", "JSON"),
  fileReader("readyaml", "YAML"),
  fileReader("readcsv", "CSV"),
  fileReader("readenvfile", "ENV"),
  defineFunction("readdata", 2, 2, readData),
];
