/**
 * A `file` resource's parameters read and checked as Puppet 7.23's file
 * type munges and validates them, into a typed spec the rest of the type
 * works from. Each problem is a sentence worded as Puppet's
 * (`Parameter mode failed on File[/x]: The file mode specification is
 * invalid: "0999"`); a resource with any is not applied.
 */
import { posix } from "node:path";
import type { CatalogResource, ParamValue } from "../../../catalog/model.js";
import { resourceRef } from "../../../catalog/model.js";
import { CHECKSUM_TYPES, type ChecksumType, DEFAULT_CHECKSUM, isChecksumType } from "./checksum.js";
import { isValidMode, normalizeMode } from "./mode.js";

export type FileEnsure = "present" | "absent" | "file" | "directory" | "link";

export interface FileSpec {
  readonly ref: string;
  readonly path: string;
  /** Absent: Puppet manages no existence, only the other properties of what is there. */
  readonly ensure?: FileEnsure;
  /** The bytes `content` asks for (templates already rendered). */
  readonly content?: Uint8Array;
  /** Sources in order (`puppet:///...`, `file:///...`), trailing slashes dropped. */
  readonly source?: readonly string[];
  readonly target?: string;
  /** Normalized: numeric without leading zeros, symbolic as given. */
  readonly mode?: string;
  readonly owner?: string;
  readonly group?: string;
  /** False, a suffix starting with `.`, or a filebucket's name. */
  readonly backup: false | string;
  readonly recurse: boolean | "remote";
  readonly recurselimit?: number;
  readonly purge: boolean;
  readonly force: boolean;
  readonly replace: boolean;
  readonly links: "manage" | "follow";
  readonly ignore: readonly string[];
  readonly checksum: ChecksumType;
  readonly sourcePermissions: "ignore" | "use" | "use_when_creating";
  readonly sourceselect: "first" | "all";
  /** A command checking the new content before it replaces the file; `%` (validate_replacement) names it. */
  readonly validateCmd?: string;
  readonly validateReplacement: string;
}

type Params = Readonly<Record<string, ParamValue>>;

/** A problem with one parameter, carried to the caller as Puppet's sentence. */
class ParamProblem extends Error {
  constructor(
    readonly param: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Ruby's `inspect` of a scalar, as Puppet quotes values in its messages. */
export function inspect(value: ParamValue | undefined): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined || value === null) return "nil";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function fail(param: string | undefined, message: string): never {
  throw new ParamProblem(param, message);
}

function first(value: ParamValue | undefined): ParamValue | undefined {
  return Array.isArray(value) ? (value as readonly ParamValue[])[0] : value;
}

/** Puppet's path munging: absolute, `.`/`..` resolved, repeated and trailing slashes dropped. */
export function mungePath(value: string): string {
  if (value.startsWith("/") && !NOT_NORMAL.test(value)) return value;
  return posix.normalize(value).replace(/(.)\/+$/, "$1");
}

/** What normalising changes in an absolute path: `//`, a `.` or `..` component, a trailing slash. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

function readPath(value: ParamValue | undefined, title: string): string {
  const path = typeof value === "string" ? value : title;
  if (!path.startsWith("/")) fail("path", `File paths must be fully qualified, not '${path}'`);
  return mungePath(path);
}

function readBoolean(params: Params, name: string, fallback: boolean): boolean {
  const raw = params[name];
  if (raw === undefined || raw === null) return fallback;
  const value = typeof raw === "string" ? raw.toLowerCase() : raw;
  if (value === true || value === "true" || value === "yes") return true;
  if (value === false || value === "false" || value === "no") return false;
  return fail(name, `Invalid value ${inspect(raw)}. Valid values are true, false, yes, no.`);
}

function readChoice<T extends string>(params: Params, name: string, values: readonly T[], fallback: T): T {
  const raw = params[name];
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw === "string" && (values as readonly string[]).includes(raw)) return raw as T;
  return fail(name, `Invalid value ${inspect(raw)}. Valid values are ${values.join(", ")}.`);
}

function readBackup(params: Params): false | string {
  const value = first(params.backup);
  if (value === undefined || value === null || value === false || value === "false") return false;
  if (value === true || value === "true") return ".puppet-bak";
  if (typeof value === "string") return value;
  return fail("backup", `Invalid backup type ${inspect(value)}`);
}

function readRecurse(params: Params): boolean | "remote" {
  const value = params.recurse;
  if (value === undefined || value === null || value === false || value === "false") return false;
  if (value === true || value === "true") return true;
  if (value === "remote") return "remote";
  return fail("recurse", `Invalid recurse value ${inspect(value)}`);
}

function readRecurselimit(params: Params): number | undefined {
  const value = params.recurselimit;
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === "string" && /^[0-9]+$/.test(value)) return Number.parseInt(value, 10);
  return fail("recurselimit", `Invalid value ${inspect(value)}. Valid values match /^[0-9]+$/.`);
}

function readMode(params: Params): string | undefined {
  const value = params.mode;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    const kind = typeof value === "number" ? (Number.isInteger(value) ? "Integer" : "Float") : "Array";
    return fail("mode", `The file mode specification must be a string, not '${kind}'`);
  }
  if (!isValidMode(value)) fail("mode", `The file mode specification is invalid: ${inspect(value)}`);
  return normalizeMode(value);
}

function readOwner(params: Params, name: "owner" | "group"): string | undefined {
  const value = first(params[name]);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") return String(value);
  if (typeof value !== "string" || (name === "group" && value === ""))
    return fail(name, `Invalid group name '${inspect(value)}'`);
  return value;
}

/** `content`: a string, or Puppet 7's rich-data Binary (`{"__ptype": "Binary", "__pvalue": base64}`). */
function readContent(params: Params): Uint8Array | undefined {
  const value = params.content;
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return Buffer.from(value, "utf8");
  if (typeof value === "object" && !Array.isArray(value)) {
    const rich = value as Readonly<Record<string, ParamValue>>;
    if (rich.__ptype === "Binary" && typeof rich.__pvalue === "string")
      return Buffer.from(rich.__pvalue, "base64");
    if (rich.__ptype === "Sensitive" && typeof rich.__pvalue === "string")
      return Buffer.from(rich.__pvalue, "utf8");
  }
  return fail("content", `Invalid content ${inspect(value)}: expected a String or a Binary`);
}

function checkSource(source: string): void {
  if (source.startsWith("/")) return;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/.exec(source);
  if (!scheme) fail("source", `Cannot use relative URLs '${source}'`);
  if (!(scheme[2] as string).startsWith("/")) fail("source", `Cannot use opaque URLs '${source}'`);
  if (!["file", "puppet", "http", "https"].includes(scheme[1] as string))
    fail("source", `Cannot use URLs of type '${scheme[1]}' as source for fileserving`);
}

function readSource(params: Params): string[] | undefined {
  const value = params.source;
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? (value as readonly ParamValue[]) : [value];
  return list.map((item) => {
    if (typeof item !== "string") return fail("source", `Could not understand source ${inspect(item)}`);
    checkSource(item);
    const trimmed = item.replace(/\/+$/, "");
    return trimmed.startsWith("/") ? `file://${trimmed}` : trimmed;
  });
}

function readEnsure(params: Params): { ensure?: FileEnsure; target?: string } {
  const value = params.ensure;
  if (value === undefined || value === null) return {};
  if (value === false || value === "false" || value === "absent") return { ensure: "absent" };
  if (value === true) return { ensure: "present" };
  if (typeof value !== "string" || value === "") return fail("ensure", `Invalid value ${inspect(value)}.`);
  if (["present", "file", "directory", "link"].includes(value)) return { ensure: value as FileEnsure };
  // Any other text is a link's target (deprecated since Puppet 4.3, still accepted).
  return { ensure: "link", target: value };
}

function readIgnore(params: Params): string[] {
  const value = params.ignore;
  if (value === undefined || value === null || value === false) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return (value as readonly ParamValue[]).map(String);
  return fail("ignore", "Ignore must be a string or an Array");
}

function readChecksum(params: Params): ChecksumType {
  const value = params.checksum;
  if (value === undefined || value === null) return DEFAULT_CHECKSUM;
  if (typeof value === "string" && isChecksumType(value)) return value;
  return fail("checksum", `Invalid value ${inspect(value)}. Valid values are ${CHECKSUM_TYPES.join(", ")}.`);
}

/** Reads every parameter; the first problem in Puppet's order is thrown as a ParamProblem. */
function readSpec(resource: CatalogResource): FileSpec {
  const params = resource.parameters;
  const ref = resourceRef(resource);
  const path = readPath(params.path, resource.title);
  const fromEnsure = readEnsure(params);
  const content = readContent(params);
  const target = typeof params.target === "string" ? params.target : fromEnsure.target;
  const ensure =
    fromEnsure.ensure ?? (target !== undefined ? "link" : content !== undefined ? "file" : undefined);
  const spec: FileSpec = {
    ref,
    path,
    ensure,
    content,
    source: readSource(params),
    target,
    mode: readMode(params),
    owner: readOwner(params, "owner"),
    group: readOwner(params, "group"),
    backup: readBackup(params),
    recurse: readRecurse(params),
    recurselimit: readRecurselimit(params),
    purge: readBoolean(params, "purge", false),
    force: readBoolean(params, "force", false),
    replace: readBoolean(params, "replace", true),
    links: readChoice(params, "links", ["follow", "manage"] as const, "manage"),
    ignore: readIgnore(params),
    checksum: readChecksum(params),
    sourcePermissions: readChoice(
      params,
      "source_permissions",
      ["use", "use_when_creating", "ignore"] as const,
      "ignore",
    ),
    sourceselect: readChoice(params, "sourceselect", ["first", "all"] as const, "first"),
    validateCmd: typeof params.validate_cmd === "string" ? params.validate_cmd : undefined,
    validateReplacement: typeof params.validate_replacement === "string" ? params.validate_replacement : "%",
  };
  checkWhole(spec);
  return spec;
}

/** The checks Puppet's file type makes across parameters. */
function checkWhole(spec: FileSpec): void {
  const creators = [spec.content, spec.source, spec.target].filter((v) => v !== undefined).length;
  if (creators > 1) fail(undefined, "You cannot specify more than one of content, source, target");
  if (!spec.source && spec.recurse === "remote")
    fail(undefined, "You cannot specify a remote recursion without a source");
  if (spec.checksum === "none" && spec.source)
    fail(undefined, "You cannot specify source when using checksum 'none'");
  if (["none", "ctime", "mtime"].includes(spec.checksum) && spec.content)
    fail(undefined, `You cannot specify content when using checksum '${spec.checksum}'`);
}

export type ParsedFile = { readonly spec: FileSpec } | { readonly error: string };

/** The resource's spec, or the one problem Puppet would report for it. */
export function parseFile(resource: CatalogResource): ParsedFile {
  try {
    return { spec: readSpec(resource) };
  } catch (error) {
    if (!(error instanceof ParamProblem)) throw error;
    const ref = resourceRef(resource);
    const message = error.param
      ? `Parameter ${error.param} failed on ${ref}: ${error.message}`
      : `Validation of ${ref} failed: ${error.message}`;
    return { error: message };
  }
}
