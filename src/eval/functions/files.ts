/**
 * File functions: tests on paths (fileexists, isdir, isplain, islink,
 * isexecutable, filesexist), filestat, filesize, time comparisons,
 * findfiles, findfiles_up, lsdir, path strings, file_hash, diskfree,
 * countlinesmatching, readfile and getfields. All synchronous: they run
 * while a policy is evaluated. A path that cannot be `lstat`ed makes the
 * class tests false, as in 3.21.
 */
import { createHash } from "node:crypto";
import { type Stats, opendirSync, statSync, statfsSync } from "node:fs";
import { parseVarRef } from "../var-ref.js";
import { compileCfRegex, matchesFully } from "../regex/match.js";
import { PcreError } from "../regex/pcre.js";
import { type Value, data, list, scalar } from "../values.js";
import {
  boolean,
  classResult,
  collection,
  collectionStrings,
  compileRegex,
  fullMatch,
  text,
} from "./args.js";
import { readLines, splitByRegex } from "./cf-regex.js";
import { cfReadFile, fileDigest, readFileResult, scanLines } from "./file-read.js";
import { fileStatField, isExecutable, lstatBig } from "./file-stat.js";
import { globFileList } from "./glob.js";
import { CF_INFINITY, intFromString } from "./numbers.js";
import { emitFunctionMessage } from "./messages.js";
import { cfBasename, cfDirname, deleteSlash } from "./paths.js";
import { type BuiltinFunction, type FunctionContext, defineFunction } from "./types.js";

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function pathTest(name: string, test: (path: string) => boolean): BuiltinFunction {
  return defineFunction(name, 1, 1, ([path]) => {
    const raw = text(path);
    if (raw === undefined) return undefined;
    return classResult(lstatBig(raw) !== undefined && test(raw));
  });
}

function readFileFunction([path, maxArg]: readonly Value[], fc: FunctionContext): Value | undefined {
  const raw = text(path);
  let max = maxArg === undefined ? CF_INFINITY : (intFromString(text(maxArg) ?? "") ?? -678n);
  if (raw === undefined) return undefined;
  if (max < 0n) {
    emitFunctionMessage(fc.ctx, "error", "readfile", `readfile: requested max size ${max} is less than 0`);
    return undefined;
  }
  if (max === CF_INFINITY) max = 0n;
  const content = cfReadFile(fc, raw, Number(max));
  return content === undefined ? undefined : scalar(content);
}

/** Entries in the order 3.21 lists them: directory order, reversed, with `.` and `..`. */
function listDirectory(dir: string): string[] | undefined {
  const names: string[] = [];
  try {
    const handle = opendirSync(dir);
    for (let entry = handle.readSync(); entry; entry = handle.readSync()) names.push(entry.name);
    handle.closeSync();
  } catch {
    return undefined;
  }
  return ["..", ".", ...names].reverse();
}

function lsdir([path, pattern, includeBase]: readonly Value[], fc: FunctionContext): Value | undefined {
  const dir = text(path);
  const regex = text(pattern) ?? "";
  if (dir === undefined) return undefined;
  const listed = listDirectory(dir);
  if (!listed) {
    // An unreadable directory is an empty list, not a failure.
    emitFunctionMessage(fc.ctx, "error", "lsdir", `Directory '${dir}' could not be accessed in lsdir()`);
  }
  const entries = (listed ?? []).filter((e) => regex === "" || fullMatch(regex, e));
  return list(boolean(includeBase) ? entries.map((e) => `${dir}/${e}`) : entries);
}

function findFiles(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const found = new Set<string>();
  for (const arg of args) {
    const pattern = text(arg);
    if (pattern === undefined) return undefined;
    if (!pattern.startsWith("/")) {
      emitFunctionMessage(
        fc.ctx,
        "warning",
        "findfiles",
        `Non-absolute path in findfiles(), skipping: ${pattern}`,
      );
      continue;
    }
    for (const path of globFileList(pattern)) found.add(path);
  }
  return list([...found]);
}

function findFilesUp([pathArg, globArg, levelArg]: readonly Value[]): Value | undefined {
  const start = text(pathArg);
  const glob = text(globArg);
  if (start === undefined || glob === undefined) return undefined;
  if (!start.startsWith("/") || !statOf(start)?.isDirectory() || glob.startsWith("/")) return undefined;
  let path = deleteSlash(start.replace(/\/+/g, "/"));
  if (path === "/") path = "";
  const cleanGlob = glob.replace(/\/+/g, "/");
  let level = levelArg === undefined ? CF_INFINITY : (intFromString(text(levelArg) ?? "") ?? -678n);
  const out: string[] = [];
  while (level-- >= 0n) {
    out.push(...globFileList(`${path}/${cleanGlob}`).sort());
    const slash = path.lastIndexOf("/");
    if (slash === -1) break;
    path = path.slice(0, slash);
  }
  return data(out);
}

function compareTimes(name: string, test: (a: Stats, b: Stats) => boolean): BuiltinFunction {
  return defineFunction(name, 2, 2, ([first, second]) => {
    const a = statOf(text(first) ?? "");
    const b = statOf(text(second) ?? "");
    return a && b ? classResult(test(a, b)) : undefined;
  });
}

const seconds = (ms: number) => Math.floor(ms / 1000);

function countLinesMatching([pattern, file]: readonly Value[], fc: FunctionContext): Value | undefined {
  const regex = text(pattern);
  const path = text(file);
  if (regex === undefined || path === undefined || !compileRegex(regex)) return undefined;
  const compiled = compileCfRegex(regex, { anchored: true });
  let count = 0;
  // A pattern PCRE refuses matches no line.
  const content = scanLines(path, (line) => {
    if (!(compiled instanceof PcreError) && matchesFully(compiled, line) === true) count++;
    return false;
  });
  if (!content.ok && content.stage === "read") {
    // Opened but unreadable (a directory): a failure.
    const message = `Unable to read data from file '${path}'. (fgets: ${content.reason})`;
    emitFunctionMessage(fc.ctx, "error", "countlinesmatching", message);
    return undefined;
  }
  if (!content.ok) {
    // A file that cannot be opened counts as no matching lines.
    const message = `File '${path}' could not be read in countlinesmatching(). (fopen: ${content.reason})`;
    emitFunctionMessage(fc.ctx, "error", "countlinesmatching", message);
    return scalar("0", "int");
  }
  return scalar(String(count), "int");
}

/** getfields(regex, file, split, array): the first matching line's fields go to `array[1]`, `array[2]`... */
function getFields(args: readonly Value[], fc: FunctionContext): Value | undefined {
  const [regex, file, split, arrayName] = args.map(text);
  if (regex === undefined || file === undefined || split === undefined || arrayName === undefined) {
    return undefined;
  }
  if (!compileRegex(regex)) return undefined;
  const content = readFileResult(file);
  if (!content.ok) {
    const message = `File '${file}' could not be read in getfields(). (fopen: ${content.reason})`;
    emitFunctionMessage(fc.ctx, "error", "getfields", message);
    return undefined;
  }
  const matching = readLines(content.text).filter((l) => fullMatch(regex, l));
  if (matching.length > 0) {
    splitByRegex(matching[0], split, 31, true).forEach((field, i) => {
      fc.ctx.setVariable(parseVarRef(`${arrayName}[${i + 1}]`), scalar(field));
    });
  }
  return scalar(String(matching.length), "int");
}

function filesExist([source]: readonly Value[], fc: FunctionContext): Value | undefined {
  const values = collection(fc, source);
  if (!values || values.type === "string" || values.type === "int" || values.type === "real")
    return undefined;
  const paths = collectionStrings(values);
  const from = fc.ctx.workingDirectory;
  const located = (p: string) => (from === undefined || p.startsWith("/") ? p : `${from}/${p}`);
  return classResult(paths.length > 0 && paths.every((p) => statOf(located(p)) !== undefined));
}

function fileHash([path, algorithm]: readonly Value[]): Value | undefined {
  const file = text(path);
  const kind = text(algorithm) ?? "md5";
  if (file === undefined) return undefined;
  let hash: ReturnType<typeof createHash>;
  try {
    hash = createHash(kind);
  } catch {
    return undefined;
  }
  return scalar(fileDigest(file, hash));
}

function diskFree([path]: readonly Value[]): Value {
  try {
    const fs = statfsSync(text(path) ?? "");
    return scalar(String(Math.floor((fs.bavail * fs.bsize) / 1024)), "int");
  } catch {
    return scalar("0", "int");
  }
}

export const fileFunctions: readonly BuiltinFunction[] = [
  pathTest("fileexists", () => true),
  pathTest("isdir", (p) => lstatBig(p)?.isDirectory() === true),
  pathTest("isplain", (p) => lstatBig(p)?.isFile() === true),
  pathTest("islink", (p) => lstatBig(p)?.isSymbolicLink() === true),
  pathTest("isexecutable", (p) => statOf(p) !== undefined && isExecutable(p)),
  defineFunction("filesize", 1, 1, ([path]) => {
    const stat = lstatBig(text(path) ?? "");
    return stat ? scalar(String(stat.size), "int") : undefined;
  }),
  defineFunction("filestat", 2, 2, ([path, field]) => {
    const value = fileStatField(text(path) ?? "", text(field) ?? "");
    return value === undefined ? undefined : scalar(value);
  }),
  defineFunction("filesexist", 1, 1, filesExist),
  compareTimes("isnewerthan", (a, b) => seconds(a.mtimeMs) > seconds(b.mtimeMs)),
  compareTimes("accessedbefore", (a, b) => seconds(a.atimeMs) < seconds(b.atimeMs)),
  compareTimes("changedbefore", (a, b) => seconds(a.ctimeMs) > seconds(b.ctimeMs)),
  defineFunction("findfiles", 0, Number.POSITIVE_INFINITY, findFiles),
  defineFunction("findfiles_up", 2, 3, findFilesUp),
  defineFunction("search_up", 2, 3, findFilesUp),
  defineFunction("lsdir", 3, 3, lsdir),
  defineFunction("dirname", 1, 1, ([path]) => scalar(cfDirname(text(path) ?? ""))),
  defineFunction("basename", 1, 2, ([path, suffix]) => scalar(cfBasename(text(path) ?? "", text(suffix)))),
  defineFunction("translatepath", 1, 1, ([path]) => scalar(text(path) ?? "")),
  defineFunction("file_hash", 2, 2, fileHash),
  defineFunction("diskfree", 1, 1, diskFree),
  defineFunction("countlinesmatching", 2, 2, countLinesMatching),
  defineFunction("readfile", 1, 2, readFileFunction),
  defineFunction("getfields", 4, 4, getFields),
];
