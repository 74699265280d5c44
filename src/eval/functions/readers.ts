/**
 * Readers of files and text into lists, classic arrays and data:
 * readjson, readyaml, readcsv, readenvfile, readdata, readstringlist,
 * readintlist, readreallist, read{string,int,real}array(idx),
 * parse{string,int,real}array(idx), data_readstringarray(idx).
 * Synchronous: they run while a policy is evaluated. A missing file or a
 * value that does not convert makes the call fail (undefined).
 */
import { fromByteString, toByteString } from "../regex/bytes.js";
import { type JsonValue, type ScalarType, type Value, data, list, scalar } from "../values.js";
import { parseVarRef } from "../var-ref.js";
import { text } from "./args.js";
import { splitByRegex, stripPatterns } from "./cf-regex.js";
import { cfReadFile } from "./file-read.js";
import { emitFunctionMessage } from "./messages.js";
import { doubleFromString, intFromString, intNumber } from "./numbers.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

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

export const readerFunctions: readonly BuiltinFunction[] = [
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
