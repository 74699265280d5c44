/**
 * The attributes of a files promise, read once per promise into plain
 * data, with cf-agent 3.21's defaults: which bodies are present, and what
 * the copy_from, link_from, depth_search, file_select, changes, delete
 * and rename bodies ask for.
 */
import { CF_INFINITY, parseCfInt } from "../../eval/numbers.js";
import type { ActivePromise } from "../contract.js";
import { hasEdits } from "../edit/session.js";
import { asBoolean, asStrings, asText } from "../values.js";
import type { ModeMasks } from "../../providers/files/mode.js";
import { parseModeString } from "../../providers/files/mode.js";

export type Comparator = "atime" | "mtime" | "ctime" | "digest" | "hash" | "binary" | "exists" | "none";
export type LinkType = "symlink" | "hardlink" | "relative" | "absolute";
export type BackupOption = "true" | "false" | "timestamp";
export type WhenNoSource = "force" | "delete" | "nop";

export interface CopyAttributes {
  /** Unexpanded as to `$(this.promiser)`: the source is expanded per destination. */
  readonly source: string | undefined;
  readonly servers: readonly string[];
  readonly compare: Comparator;
  /** `symlink` unless given: 3.21 always copies a link as a link. */
  readonly linkType: LinkType;
  readonly linkcopyPatterns: readonly string[];
  readonly copylinkPatterns: readonly string[];
  readonly backup: BackupOption;
  readonly stealth: boolean;
  readonly collapse: boolean;
  readonly preserve: boolean;
  readonly typeCheck: boolean;
  readonly forceUpdate: boolean;
  readonly checkRoot: boolean;
  readonly sizeRange: readonly [number, number] | undefined;
  readonly verify: boolean;
  readonly purge: boolean;
  readonly missingOk: boolean;
  /** `portnumber` (a number or a service name), undefined for 5308. */
  readonly port: string | undefined;
  /** `protocol_version` as written; undefined when not given. */
  readonly protocolVersion: string | undefined;
  /** `trustkey`: trust an unknown server key on first use. */
  readonly trustKey: boolean;
  /** `encrypt`: the classic protocol's encrypted commands (TLS is always encrypted). */
  readonly encrypt: boolean;
  /** `timeout` in seconds; undefined when not given. */
  readonly timeout: number | undefined;
}

export interface LinkAttributes {
  readonly source: string | undefined;
  readonly linkType: LinkType;
  readonly copyPatterns: readonly string[];
  readonly whenNoSource: WhenNoSource;
  /** `when_linking_children => "override_file"`. */
  readonly overrideFiles: boolean;
  readonly linkChildren: boolean;
}

export interface RecursionAttributes {
  /** 0 when not given; `inf` is a very large number. */
  readonly depth: number;
  readonly includeDirs: readonly string[];
  readonly excludeDirs: readonly string[];
  readonly includeBasedir: boolean;
  readonly rmdeadlinks: boolean;
  readonly traverseLinks: boolean;
  readonly xdev: boolean;
}

export type HashMethod = "md5" | "sha1" | "sha256" | "sha384" | "sha512" | "best";

export interface ChangeAttributes {
  readonly hash: HashMethod;
  readonly reportChanges: "content" | "stats" | "all" | "none";
  readonly update: boolean;
  readonly reportDiffs: boolean;
}

export interface RenameAttributes {
  readonly disable: boolean;
  readonly disableSuffix: string | undefined;
  readonly disableMode: ModeMasks | undefined;
  readonly newname: string | undefined;
  /** undefined when not given (0 truncates the file). */
  readonly rotate: number | undefined;
}

export interface FilesAttributes {
  readonly create: boolean;
  readonly createFalse: boolean;
  readonly touch: boolean;
  readonly moveObstructions: boolean;
  readonly fileType: string | undefined;
  readonly transformer: string | undefined;
  readonly content: string | undefined;
  readonly haveDelete: boolean;
  readonly haveRename: boolean;
  readonly havePerms: boolean;
  readonly haveChange: boolean;
  readonly haveCopy: boolean;
  readonly haveLink: boolean;
  readonly haveDepthSearch: boolean;
  readonly haveSelect: boolean;
  readonly haveEditLine: boolean;
  readonly haveEditXml: boolean;
  readonly haveEdit: boolean;
  readonly haveAcl: boolean;
  readonly copy: CopyAttributes;
  readonly link: LinkAttributes;
  readonly recursion: RecursionAttributes;
  readonly change: ChangeAttributes;
  readonly rename: RenameAttributes;
  /** `delete` body: `rmdirs`. */
  readonly rmdirs: boolean;
  /** `delete` body: `dirlinks => "keep"`. */
  readonly keepDirlinks: boolean;
}

const COMPARATORS: ReadonlySet<string> = new Set([
  "atime",
  "mtime",
  "ctime",
  "digest",
  "hash",
  "binary",
  "exists",
]);
const LINK_TYPES: ReadonlySet<string> = new Set(["symlink", "hardlink", "relative", "absolute"]);
const HASHES: ReadonlySet<string> = new Set(["md5", "sha1", "sha256", "sha384", "sha512", "best"]);

function bodyText(p: ActivePromise, body: string, name: string): string | undefined {
  return asText(p.bodyValue(body, name));
}

function bodyFlag(p: ActivePromise, body: string, name: string): boolean {
  return asBoolean(p.bodyValue(body, name), false);
}

/** An `irange` ("min,max", max may be `inf`). */
export function parseRange(text: string | undefined): readonly [number, number] | undefined {
  if (text === undefined) return undefined;
  const [low, high] = text.split(",");
  const min = parseCfInt(low ?? "");
  const max = high?.trim() === "inf" ? CF_INFINITY : parseCfInt(high ?? "");
  return min === undefined || max === undefined ? undefined : [min, max];
}

function readCopy(p: ActivePromise, defaultCompare: string | undefined): CopyAttributes {
  const compare = bodyText(p, "copy_from", "compare") ?? defaultCompare ?? "none";
  const linkType = bodyText(p, "copy_from", "link_type");
  const backup = bodyText(p, "copy_from", "copy_backup");
  return {
    source: rawSource(p, "copy_from"),
    servers: asStrings(p.bodyValue("copy_from", "servers")),
    compare: (COMPARATORS.has(compare) ? compare : "none") as Comparator,
    linkType: (linkType !== undefined && LINK_TYPES.has(linkType) ? linkType : "symlink") as LinkType,
    linkcopyPatterns: asStrings(p.bodyValue("copy_from", "linkcopy_patterns")),
    copylinkPatterns: asStrings(p.bodyValue("copy_from", "copylink_patterns")),
    backup: backup === "false" || backup === "timestamp" ? backup : "true",
    stealth: bodyFlag(p, "copy_from", "stealth"),
    collapse: bodyFlag(p, "copy_from", "collapse_destination_dir"),
    preserve: bodyFlag(p, "copy_from", "preserve"),
    typeCheck: bodyFlag(p, "copy_from", "type_check"),
    forceUpdate: bodyFlag(p, "copy_from", "force_update"),
    checkRoot: bodyFlag(p, "copy_from", "check_root"),
    sizeRange: parseRange(bodyText(p, "copy_from", "copy_size")),
    verify: bodyFlag(p, "copy_from", "verify"),
    purge: bodyFlag(p, "copy_from", "purge"),
    missingOk: bodyFlag(p, "copy_from", "missing_ok"),
    port: bodyText(p, "copy_from", "portnumber"),
    protocolVersion: bodyText(p, "copy_from", "protocol_version"),
    trustKey: bodyFlag(p, "copy_from", "trustkey"),
    encrypt: bodyFlag(p, "copy_from", "encrypt"),
    timeout: positiveInt(bodyText(p, "copy_from", "timeout")),
  };
}

function positiveInt(text: string | undefined): number | undefined {
  const n = text === undefined ? Number.NaN : Number.parseInt(text, 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** A body's `source` as written when it mentions `$(this.promiser)`, else expanded. */
function rawSource(p: ActivePromise, body: string): string | undefined {
  return bodyText(p, body, "source");
}

function readLink(p: ActivePromise): LinkAttributes {
  const linkType = bodyText(p, "link_from", "link_type") ?? "symlink";
  const whenNoSource = bodyText(p, "link_from", "when_no_source");
  return {
    source: rawSource(p, "link_from"),
    linkType: (LINK_TYPES.has(linkType) ? linkType : "symlink") as LinkType,
    copyPatterns: asStrings(p.bodyValue("link_from", "copy_patterns")),
    whenNoSource: whenNoSource === "force" || whenNoSource === "delete" ? whenNoSource : "nop",
    overrideFiles: bodyText(p, "link_from", "when_linking_children") === "override_file",
    linkChildren: bodyFlag(p, "link_from", "link_children"),
  };
}

function readRecursion(p: ActivePromise): RecursionAttributes {
  const depthText = bodyText(p, "depth_search", "depth");
  const depth = depthText === "inf" ? CF_INFINITY : parseCfInt(depthText ?? "");
  return {
    depth: depth ?? 0,
    includeDirs: asStrings(p.bodyValue("depth_search", "include_dirs")),
    excludeDirs: asStrings(p.bodyValue("depth_search", "exclude_dirs")),
    includeBasedir: bodyFlag(p, "depth_search", "include_basedir"),
    rmdeadlinks: bodyFlag(p, "depth_search", "rmdeadlinks"),
    traverseLinks: bodyFlag(p, "depth_search", "traverse_links"),
    xdev: bodyFlag(p, "depth_search", "xdev"),
  };
}

function readChange(p: ActivePromise): ChangeAttributes {
  const hash = bodyText(p, "changes", "hash") ?? "";
  const report = bodyText(p, "changes", "report_changes");
  const update = p.bodyValue("changes", "update_hashes");
  return {
    hash: (HASHES.has(hash) ? hash : "md5") as HashMethod,
    reportChanges: report === "content" || report === "stats" || report === "all" ? report : "none",
    update: asBoolean(update, false),
    reportDiffs: bodyFlag(p, "changes", "report_diffs"),
  };
}

function readRename(p: ActivePromise): RenameAttributes {
  const mode = bodyText(p, "rename", "disable_mode");
  const rotate = bodyText(p, "rename", "rotate");
  return {
    disable: bodyFlag(p, "rename", "disable"),
    disableSuffix: bodyText(p, "rename", "disable_suffix"),
    disableMode: mode === undefined ? undefined : parseModeString(mode),
    newname: bodyText(p, "rename", "newname"),
    rotate: rotate === undefined ? undefined : parseCfInt(rotate),
  };
}

/** What a promise without the body reads (each reader's defaults). */
const NO_COPY: CopyAttributes = Object.freeze({
  source: undefined,
  servers: [],
  compare: "none",
  linkType: "symlink",
  linkcopyPatterns: [],
  copylinkPatterns: [],
  backup: "true",
  stealth: false,
  collapse: false,
  preserve: false,
  typeCheck: false,
  forceUpdate: false,
  checkRoot: false,
  sizeRange: undefined,
  verify: false,
  purge: false,
  missingOk: false,
  port: undefined,
  protocolVersion: undefined,
  trustKey: false,
  encrypt: false,
  timeout: undefined,
});
const NO_LINK: LinkAttributes = Object.freeze({
  source: undefined,
  linkType: "symlink",
  copyPatterns: [],
  whenNoSource: "nop",
  overrideFiles: false,
  linkChildren: false,
});
const NO_RECURSION: RecursionAttributes = Object.freeze({
  depth: 0,
  includeDirs: [],
  excludeDirs: [],
  includeBasedir: false,
  rmdeadlinks: false,
  traverseLinks: false,
  xdev: false,
});
const NO_CHANGE: ChangeAttributes = Object.freeze({
  hash: "md5",
  reportChanges: "none",
  update: false,
  reportDiffs: false,
});
const NO_RENAME: RenameAttributes = Object.freeze({
  disable: false,
  disableSuffix: undefined,
  disableMode: undefined,
  newname: undefined,
  rotate: undefined,
});

/** Reads a files promise; `defaultCompare` is `defaultcopytype` of `body agent control`. */
export function readFilesAttributes(p: ActivePromise, defaultCompare?: string): FilesAttributes {
  const createText = asText(p.value("create"));
  const haveEditLine = p.raw("edit_line") !== undefined;
  const haveEditXml = p.raw("edit_xml") !== undefined;
  return {
    create: asBoolean(p.value("create"), false),
    createFalse: createText === "false" || createText === "no",
    touch: asBoolean(p.value("touch"), false),
    moveObstructions: asBoolean(p.value("move_obstructions"), false),
    fileType: asText(p.value("file_type")),
    transformer: p.raw("transformer") === undefined ? undefined : (asText(p.value("transformer")) ?? ""),
    content: asText(p.value("content")),
    haveDelete: p.body("delete") !== undefined,
    haveRename: p.body("rename") !== undefined,
    havePerms: p.body("perms") !== undefined,
    haveChange: p.body("changes") !== undefined,
    haveCopy: p.body("copy_from") !== undefined,
    haveLink: p.body("link_from") !== undefined,
    haveDepthSearch: p.body("depth_search") !== undefined,
    haveSelect: p.body("file_select") !== undefined,
    haveEditLine,
    haveEditXml,
    haveEdit: hasEdits(p),
    haveAcl: asStrings(p.bodyValue("acl", "aces")).length > 0,
    // Most files promises have few bodies: the others' defaults are shared.
    copy: p.body("copy_from") ? readCopy(p, defaultCompare) : NO_COPY,
    link: p.body("link_from") ? readLink(p) : NO_LINK,
    recursion: p.body("depth_search") ? readRecursion(p) : NO_RECURSION,
    change: p.body("changes") ? readChange(p) : NO_CHANGE,
    rename: p.body("rename") ? readRename(p) : NO_RENAME,
    rmdirs: bodyFlag(p, "delete", "rmdirs"),
    keepDirlinks: bodyText(p, "delete", "dirlinks") === "keep",
  };
}
