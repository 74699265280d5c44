/**
 * `file_select` bodies: which files a promise (or a depth search, or a
 * recursive copy) acts on. Each criterion given that holds adds a word
 * (`leaf_name`, `path_name`, `file_types`, `owner`, `group`, `mode`,
 * `size`, `mtime`, `ctime`, `atime`, `issymlinkto`, `exec_regex`,
 * `exec_program`) and `file_result` is a class expression over those
 * words, as in cf-agent 3.21 (including its quirks: an absent `path_name`
 * adds `leaf_path`, not `path_name`; an absent owner or group criterion
 * counts as matching).
 */
import { spawnSync } from "node:child_process";
import { type Stats, readlinkSync } from "node:fs";
import { checkClassExpression } from "../../eval/class-expression.js";
import { expandRval } from "../../eval/expand.js";
import { splitCommand } from "../../eval/functions/exec.js";
import { matchesFully } from "../../eval/regex/match.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { asStrings, asText } from "../values.js";
import type { AccountDatabase } from "../../providers/files/accounts.js";
import { parseRange } from "./attributes.js";
import { parseModeString } from "../../providers/files/mode.js";
import { lastNode } from "./paths.js";
import { accountsOf } from "./run-state.js";
import { withPromiser } from "./step.js";

export interface FileSelect {
  readonly leafNames: readonly string[];
  readonly pathNames: readonly string[];
  readonly fileTypes: readonly string[];
  readonly issymlinkto: readonly string[];
  readonly modes: readonly string[];
  readonly owners: readonly string[];
  readonly groups: readonly string[];
  readonly size: readonly [number, number] | undefined;
  readonly ctime: readonly [number, number] | undefined;
  readonly mtime: readonly [number, number] | undefined;
  readonly atime: readonly [number, number] | undefined;
  /** With `$(this.promiser)` left in, to be replaced by each file's path. */
  readonly execRegex: string | undefined;
  readonly execProgram: string | undefined;
  readonly result: string | undefined;
}

const PROMISER_MARK = "$(this.promiser)";
/** The same reference with braces, built so that it does not read as a template. */
const BRACED_MARK = ["$", "{this.promiser}"].join("");

/** Reads the promise's file_select body; undefined without one. */
export function readFileSelect(promise: ActivePromise, env: PromiseEnvironment): FileSelect | undefined {
  const body = promise.body("file_select");
  if (!body) return undefined;
  const list = (name: string) => asStrings(promise.bodyValue("file_select", name));
  const text = (name: string) => asText(promise.bodyValue("file_select", name));
  // exec_program names the file as $(this.promiser): keep it for each file.
  const execProgram = body.attributes.get("exec_program")?.value;
  const program = execProgram
    ? asText(withPromiser(env, PROMISER_MARK, () => expandRval(env.ctx, execProgram, promise.options)))
    : undefined;
  return {
    leafNames: list("leaf_name"),
    pathNames: list("path_name"),
    fileTypes: list("file_types"),
    issymlinkto: list("issymlinkto"),
    modes: list("search_mode"),
    owners: list("search_owners"),
    groups: list("search_groups"),
    size: parseRange(text("search_size")),
    ctime: parseRange(text("ctime")),
    mtime: parseRange(text("mtime")),
    atime: parseRange(text("atime")),
    execRegex: text("exec_regex"),
    execProgram: program,
    result: text("file_result"),
  };
}

function fullMatch(pattern: string, subject: string): boolean {
  return matchesFully(pattern, subject) === true;
}

function typeWords(stats: Stats): string[] {
  if (stats.isFile()) return ["reg", "plain"];
  if (stats.isDirectory()) return ["dir"];
  if (stats.isSymbolicLink()) return ["symlink"];
  if (stats.isFIFO()) return ["fifo"];
  if (stats.isSocket()) return ["socket"];
  if (stats.isCharacterDevice()) return ["char"];
  if (stats.isBlockDevice()) return ["block"];
  return [];
}

/** A criterion list matches when any item, as a class expression over the words or a regex, matches. */
function accountMatch(criteria: readonly string[], id: number, name: string | undefined): boolean {
  const words = new Set([String(id), name ?? "none"]);
  return criteria.some(
    (c) =>
      checkClassExpression(c, (w) => words.has(w)) === true ||
      (name !== undefined && fullMatch(c, name)) ||
      fullMatch(c, String(id)),
  );
}

function modeMatch(modes: readonly string[], stats: Stats): boolean {
  const current = stats.mode & 0o7777;
  return modes.some((text) => {
    const masks = parseModeString(text);
    return masks !== undefined && ((current | masks.plus) & ~masks.minus) === current;
  });
}

function inRange(value: number, range: readonly [number, number] | undefined, inclusive: boolean): boolean {
  if (!range) return false;
  return inclusive ? value >= range[0] && value <= range[1] : range[0] < value && value < range[1];
}

function symlinkMatch(patterns: readonly string[], path: string, stats: Stats): boolean {
  if (!stats.isSymbolicLink()) return false;
  let target: string;
  try {
    target = readlinkSync(path);
  } catch {
    return false;
  }
  return patterns.some((p) => fullMatch(p, target));
}

function withPath(command: string, path: string): string {
  return command.split(PROMISER_MARK).join(path).split(BRACED_MARK).join(path);
}

function execRegexMatch(select: FileSelect, path: string): boolean {
  const command = withPath(select.execProgram ?? "", path);
  const [program, ...args] = splitCommand(command);
  if (program === undefined) return false;
  const run = spawnSync(program, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const out = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  return out.split("\n").some((line) => fullMatch(select.execRegex ?? "", line));
}

function execProgramMatch(select: FileSelect, path: string): boolean {
  const [program, ...args] = splitCommand(withPath(select.execProgram ?? "", path));
  if (program === undefined) return false;
  return spawnSync(program, args, { stdio: "ignore" }).status === 0;
}

/** The words of the criteria `path` (lstat `stats`) meets. */
export function selectionWords(
  select: FileSelect,
  path: string,
  stats: Stats,
  accounts: AccountDatabase,
): Set<string> {
  const words = new Set<string>();
  const add = (word: string, holds: boolean) => holds && words.add(word);
  const leaf = lastNode(path);
  add("leaf_name", select.leafNames.length === 0 || select.leafNames.some((p) => fullMatch(p, leaf)));
  if (select.pathNames.length === 0) words.add("leaf_path");
  add(
    "path_name",
    select.pathNames.some((p) => fullMatch(p, path)),
  );
  const types = new Set(typeWords(stats));
  add(
    "file_types",
    select.fileTypes.some((t) => checkClassExpression(t, (w) => types.has(w)) === true),
  );
  add(
    "owner",
    select.owners.length === 0 || accountMatch(select.owners, stats.uid, accounts.userName(stats.uid)),
  );
  add(
    "group",
    select.groups.length === 0 || accountMatch(select.groups, stats.gid, accounts.groupName(stats.gid)),
  );
  add("mode", modeMatch(select.modes, stats));
  const seconds = (ms: number) => Math.floor(ms / 1000);
  add("atime", inRange(seconds(stats.atimeMs), select.atime, false));
  add("ctime", inRange(seconds(stats.ctimeMs), select.ctime, false));
  add("size", inRange(stats.size, select.size, true));
  add("mtime", inRange(seconds(stats.mtimeMs), select.mtime, false));
  add("issymlinkto", select.issymlinkto.length > 0 && symlinkMatch(select.issymlinkto, path, stats));
  add("exec_regex", select.execRegex !== undefined && execRegexMatch(select, path));
  add("exec_program", select.execProgram !== undefined && execProgramMatch(select, path));
  return words;
}

/** Whether `path` (lstat `stats`) is selected; logs the verdict in verbose mode. */
export function selectLeaf(env: PromiseEnvironment, select: FileSelect, path: string, stats: Stats): boolean {
  const words = selectionWords(select, path, stats, accountsOf(env));
  const result =
    select.result !== undefined && checkClassExpression(select.result, (w) => words.has(w)) === true;
  env.log.verbose(`file_select result '${select.result ?? ""}' on '${path}' was '${result}'`);
  return result;
}
