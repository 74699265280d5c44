/**
 * puppetlabs-stdlib's `file_line`: one line present in (or absent from) a
 * file, as stdlib's ruby provider decides it — the exact line anywhere, or
 * a line matching `match` replaced (`multiple` for more than one), else
 * inserted after the line matching `after`, else appended; `ensure =>
 * absent` removes the exact line, or with `match_for_absence` the matching
 * ones. Its one event is on `ensure` (`created`, `removed`). The file is
 * rewritten atomically through the files provider, keeping its mode and
 * owner (stdlib rewrites in place; the result is the same file).
 */
import { readFileSync } from "node:fs";
import type { CatalogResource, ParamValue } from "../../catalog/model.js";
import { resourceRef } from "../../catalog/model.js";
import type { ApplyContext, ResourceResult, ResourceType } from "../../catalog/resource-type.js";
import { replaceContent } from "../../providers/files/index.js";
import { rubyRegExp } from "./ruby-regexp.js";

interface LineSpec {
  readonly path: string;
  readonly line?: string;
  readonly match?: RegExp;
  readonly matchText?: string;
  readonly after?: RegExp;
  readonly afterText?: string;
  readonly ensure: "present" | "absent";
  readonly multiple: boolean;
  readonly replace: boolean;
  readonly matchForAbsence: boolean;
  readonly replaceAllNotMatching: boolean;
  readonly appendOnNoMatch: boolean;
}

function flag(params: Readonly<Record<string, ParamValue>>, name: string, fallback: boolean): boolean {
  const value = params[name];
  if (value === undefined || value === null) return fallback;
  return String(value) === "true";
}

function text(value: ParamValue | undefined): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

function parse(resource: CatalogResource): LineSpec | string {
  const p = resource.parameters;
  const ensure = p.ensure === "absent" ? "absent" : "present";
  const path = text(p.path);
  const matchText = text(p.match);
  const spec = {
    path: path ?? "",
    line: text(p.line),
    matchText,
    afterText: text(p.after),
    ensure,
    multiple: flag(p, "multiple", false),
    replace: flag(p, "replace", true),
    matchForAbsence: flag(p, "match_for_absence", false),
    replaceAllNotMatching: flag(p, "replace_all_matches_not_matching_line", false),
    appendOnNoMatch: flag(p, "append_on_no_match", true),
  } as const;
  const ref = resourceRef(resource);
  if (spec.replaceAllNotMatching && p.multiple !== undefined && !spec.multiple)
    return `Validation of ${ref} failed: multiple must be true when replace_all_matches_not_matching_line is true`;
  if (spec.replaceAllNotMatching && !spec.replace)
    return `Validation of ${ref} failed: replace must be true when replace_all_matches_not_matching_line is true`;
  if (spec.line === undefined && !(ensure === "absent" && spec.matchForAbsence && matchText !== undefined))
    return `Validation of ${ref} failed: line is a required attribute`;
  if (path === undefined) return `Validation of ${ref} failed: path is a required attribute`;
  if (!path.startsWith("/"))
    return `Parameter path failed on ${ref}: File paths must be fully qualified, not '${path}'`;
  try {
    return {
      ...spec,
      match: matchText === undefined ? undefined : rubyRegExp(matchText),
      after: spec.afterText === undefined ? undefined : rubyRegExp(spec.afterText),
    };
  } catch (error) {
    return `Validation of ${ref} failed: ${(error as Error).message}`;
  }
}

/** The file's lines, each with its newline (Ruby's readlines). */
function readLines(path: string): string[] {
  return readFileSync(path, "utf8").match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function chomp(line: string): string {
  return line.endsWith("\n") ? line.slice(0, -1) : line;
}

function countMatches(spec: LineSpec, lines: readonly string[], regex: RegExp | undefined): number {
  if (!regex) return 0;
  return lines.filter((line) =>
    spec.replaceAllNotMatching && chomp(line) === spec.line ? false : regex.test(line),
  ).length;
}

/** stdlib's exists?: whether the resource is in its ensured state's "present" sense. */
function exists(spec: LineSpec, lines: readonly string[]): boolean {
  const linesCount = lines.filter((line) => chomp(line) === spec.line).length;
  if (!spec.match) return linesCount > 0;
  const matchCount = countMatches(spec, lines, spec.match);
  if (spec.ensure === "present") {
    if (matchCount === 0) return linesCount > 0 || !spec.appendOnNoMatch;
    if (spec.replaceAllNotMatching) return false;
    return linesCount === 0 ? !spec.replace : true;
  }
  if (matchCount === 0) return linesCount > 0;
  return linesCount === 0 ? spec.matchForAbsence : true;
}

/** Ruby's `puts`: a line gets a newline unless it has one. */
function puts(out: string[], line: string): void {
  out.push(line.endsWith("\n") ? line : `${line}\n`);
}

class LineError extends Error {}

function createWithMatch(spec: LineSpec, lines: readonly string[]): string[] {
  let matchCount = countMatches(spec, lines, spec.match);
  if (matchCount > 1 && !spec.multiple)
    throw new LineError(`More than one line in file '${spec.path}' matches pattern '${spec.matchText}'`);
  const out: string[] = [];
  for (const line of lines) {
    puts(out, spec.match?.test(line) ? (spec.line ?? "") : line);
    if (matchCount === 0 && spec.after?.test(line)) {
      puts(out, spec.line ?? "");
      matchCount += 1;
    }
  }
  if (matchCount === 0) puts(out, spec.line ?? "");
  return out;
}

function createWithAfter(spec: LineSpec, lines: readonly string[]): string[] {
  const afterCount = countMatches(spec, lines, spec.after);
  if (afterCount > 1 && !spec.multiple)
    throw new LineError(
      `${afterCount} lines match pattern '${spec.afterText}' in file '${spec.path}'. One or no line must match the pattern.`,
    );
  const out: string[] = [];
  for (const line of lines) {
    puts(out, line);
    if (spec.after?.test(line)) puts(out, spec.line ?? "");
  }
  if (afterCount === 0) puts(out, spec.line ?? "");
  return out;
}

function create(spec: LineSpec, lines: readonly string[]): string[] | undefined {
  if (!spec.replace && countMatches(spec, lines, spec.match) > 0) return undefined;
  if (spec.match) return createWithMatch(spec, lines);
  if (spec.after) return createWithAfter(spec, lines);
  const out: string[] = [];
  for (const line of lines) puts(out, line);
  puts(out, spec.line ?? "");
  return out;
}

function destroy(spec: LineSpec, lines: readonly string[]): string[] {
  if (spec.matchForAbsence && spec.match) {
    if (countMatches(spec, lines, spec.match) > 1 && !spec.multiple)
      throw new LineError(`More than one line in file '${spec.path}' matches pattern '${spec.matchText}'`);
    return lines.filter((line) => !spec.match?.test(line));
  }
  return lines.filter((line) => chomp(line) !== spec.line);
}

function readOrFail(spec: LineSpec, noop: boolean): string[] {
  try {
    return readLines(spec.path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && noop) return [];
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      throw new LineError(`No such file or directory @ rb_sysopen - ${spec.path}`);
    throw new LineError((error as Error).message);
  }
}

function applyLine(spec: LineSpec, context: ApplyContext): ResourceResult {
  let lines: string[];
  try {
    lines = readOrFail(spec, context.noop);
  } catch (error) {
    return { events: [], failed: (error as Error).message, provider: "ruby" };
  }
  const current = exists(spec, lines) ? "present" : "absent";
  if (current === spec.ensure) return { events: [], provider: "ruby" };
  const base = {
    property: "ensure",
    previousValue: current,
    desiredValue: spec.ensure,
    name: `file_line_${spec.ensure === "present" ? "created" : "removed"}`,
  };
  if (context.noop)
    return {
      events: [
        { ...base, status: "noop", message: `current_value '${current}', should be '${spec.ensure}' (noop)` },
      ],
      provider: "ruby",
    };
  try {
    const out = spec.ensure === "present" ? create(spec, lines) : destroy(spec, lines);
    if (out) replaceContent(spec.path, out.join(""));
  } catch (error) {
    const message = `change from '${current}' to '${spec.ensure}' failed: ${(error as Error).message}`;
    return { events: [{ ...base, status: "failure", message }], failed: message, provider: "ruby" };
  }
  const message = spec.ensure === "present" ? "created" : "removed";
  return { events: [{ ...base, status: "success", message }], provider: "ruby" };
}

export const fileLineType: ResourceType = {
  name: "file_line",
  validate(resource) {
    const spec = parse(resource);
    return typeof spec === "string" ? [spec] : [];
  },
  async apply(resource, context) {
    const spec = parse(resource);
    if (typeof spec === "string") return { events: [], failed: spec };
    return applyLine(spec, context);
  },
};
