/**
 * Symbolic and hard links, as cf-agent 3.21 makes and checks them for
 * `link_from` and for links met while copying: a link that points
 * elsewhere is replaced only with `move_obstructions`; `relative` and
 * `absolute` links compute their target from the source path; a link
 * whose target is gone is removed with `when_no_source => "delete"` or
 * `rmdeadlinks`.
 */
import { lstatSync, statSync } from "node:fs";
import { readLinkOrUndefined } from "../../providers/files/inspect.js";
import { createHardLink, createSymlink } from "../../providers/files/link.js";
import { removePath } from "../../providers/files/remove.js";
import type { LinkType, WhenNoSource } from "./attributes.js";
import { makeParentDirectory } from "./create.js";
import { type ObstructionOptions, moveObstruction } from "./obstruction.js";
import { addSlash, chopLastNode, compressPath, deleteSlash, joinPath } from "./paths.js";
import { errorText, type FileStep } from "./step.js";

/** How links are made and checked for one promise. */
export interface LinkOptions extends ObstructionOptions {
  readonly whenNoSource: WhenNoSource;
  readonly rmdeadlinks: boolean;
}

const MAX_LINK_LEVEL = 4;

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path a relative link target (`./x`, `../x`) at `from` stands for. */
export function absoluteLinkPath(from: string, relative: string): string {
  let pop = 1;
  let rest = relative;
  for (;;) {
    if (rest.startsWith("../")) {
      pop++;
      rest = rest.slice(3);
    } else if (rest.startsWith("./")) rest = rest.slice(2);
    else break;
  }
  let dir = from;
  for (; pop > 0; pop--) dir = chopLastNode(dir);
  return `${dir === "" ? "/" : addSlash(dir)}${rest}`;
}

/** A link of the given type at `destination` to `source`. */
export function verifyLinkOfType(
  step: FileStep,
  type: LinkType,
  destination: string,
  source: string,
  options: LinkOptions,
): void {
  switch (type) {
    case "hardlink":
      verifyHardLink(step, destination, source, options);
      return;
    case "relative":
      verifyRelativeLink(step, destination, source, options);
      return;
    case "absolute":
      verifyAbsoluteLink(step, destination, source, options);
      return;
    default:
      verifyLink(step, destination, source, options);
  }
}

/** A symbolic link at `destination` whose text is `source`. */
export function verifyLink(step: FileStep, destination: string, source: string, options: LinkOptions): void {
  const absolute = source.startsWith("/");
  const to = !absolute && !source.startsWith(".") ? `./${source}` : source;
  const absoluteTo = absolute ? to : absoluteLinkPath(destination, to);
  const sourceExists = exists(absoluteTo);
  if (!sourceExists && options.whenNoSource !== "force" && options.whenNoSource !== "delete") {
    step.unchanged(`Source '${absoluteTo}' for linking is absent`);
    step.failed(`Unable to create link '${destination}' -> '${to}', no source`);
    return;
  }
  if (!sourceExists && options.whenNoSource === "delete") {
    killGhostLink(step, destination, options);
    return;
  }
  const current = readLinkOrUndefined(destination);
  if (current === undefined) {
    createLink(step, destination, source, to, options);
    return;
  }
  if (current === source || current === to) {
    step.kept(`Link '${destination}' points to '${source}', promise kept`);
    return;
  }
  if (!options.moveObstructions) {
    step.failed(`Link '${destination}' points to '${current}' not '${to}', but not moving obstructions`);
    return;
  }
  if (!step.makingChanges(`remove incorrect link '${destination}'`)) return;
  if (removePath(destination, { missingOk: false }).status === "failed") {
    step.failed(`Error removing link '${destination}' (points to '${current}' not '${to}')`);
    return;
  }
  step.changed(`Overrode incorrect link '${destination}'`);
  makeLink(step, destination, source);
}

function createLink(
  step: FileStep,
  destination: string,
  source: string,
  to: string,
  options: LinkOptions,
): void {
  if (!step.makingChanges(`create link '${destination}'`)) return;
  const created = makeParentDirectory(step, options.moveObstructions, destination);
  if (created === undefined) return;
  if (created) step.changed(`Created parent directory for link '${destination}'`);
  if (!moveObstruction(step, destination, options)) {
    step.failed(`Unable to create link '${destination}' -> '${to}', failed to move obstruction`);
    return;
  }
  if (!makeLink(step, destination, source)) step.failed(`Unable to create link '${destination}' -> '${to}'`);
}

/** A link whose target is the source's absolute path, links in it resolved with `force`. */
export function verifyAbsoluteLink(
  step: FileStep,
  destination: string,
  source: string,
  options: LinkOptions,
): void {
  const linkTo = source.startsWith(".") ? joinPath(chopLastNode(destination), source) : source;
  const absoluteTo = compressPath(linkTo) ?? "";
  let expanded = absoluteTo;
  if (options.whenNoSource === "force") {
    const result = expandLinks(step, absoluteTo);
    if (result === undefined) {
      step.failed(`Failed to expand absolute link to '${source}'`);
      step.ref();
      return;
    }
    expanded = result;
  }
  verifyLink(step, destination, compressPath(expanded) ?? "", options);
}

/** A link whose target is the source's path relative to the link's directory. */
export function verifyRelativeLink(
  step: FileStep,
  destination: string,
  source: string,
  options: LinkOptions,
): void {
  if (source.startsWith(".")) {
    verifyLink(step, destination, source, options);
    return;
  }
  const linkTo = compressPath(source);
  if (linkTo === undefined) {
    step.interrupted(`Failed to link '${destination}' to '${source}'`);
    return;
  }
  if (linkTo === destination) {
    step.interrupted(`Failed to link '${destination}' to '${source}', can't link file '${linkTo}' to itself`);
    return;
  }
  verifyLink(step, destination, relativeTarget(linkTo, destination), options);
}

/** `./../x/y`: the text of a relative link at `from` to `to`, as cf-agent writes it. */
export function relativeTarget(to: string, from: string): string {
  let j = 0;
  while (j < to.length && j < from.length && to[j] === from[j]) j++;
  // Back up to the separator both paths share.
  while (j > 0 && !(to[j] === "/" && from[j] === "/")) j--;
  const commonTo = to.slice(j + 1);
  let levels = 0;
  for (const ch of from.slice(j)) if (ch === "/") levels++;
  let text = "./";
  for (; levels > 1; levels--) text += "../";
  return `${text}${commonTo}`;
}

/** A hard link at `destination` to the regular file `source`. */
export function verifyHardLink(
  step: FileStep,
  destination: string,
  source: string,
  options: ObstructionOptions,
): void {
  const absolute = source.startsWith("/");
  const to = !absolute && !source.startsWith(".") ? `./${source}` : source;
  const absoluteTo = absolute ? to : absoluteLinkPath(destination, to);
  let sourceStats: ReturnType<typeof statSync> | undefined;
  try {
    sourceStats = statSync(absoluteTo);
  } catch {
    sourceStats = undefined;
  }
  if (!sourceStats?.isFile()) {
    step.failed(`Source file '${to}' is not a regular file, not appropriate to hard-link`);
    return;
  }
  let destStats: ReturnType<typeof statSync> | undefined;
  try {
    destStats = statSync(destination);
  } catch {
    makeHardLink(step, destination, to, absoluteTo);
    return;
  }
  if (destStats.ino === sourceStats.ino && destStats.dev === sourceStats.dev) {
    step.kept(`Hard link '${destination}' -> '${to}' exists and is okay`);
    return;
  }
  step.env.log.info(`'${destination}' does not appear to be a hard link to '${to}'`);
  if (!step.makingChanges(`hard link '${destination}' -> '${to}'`)) return;
  if (!moveObstruction(step, destination, options)) {
    step.failed(`Unable to create hard link '${destination}' -> '${to}', failed to move obstruction`);
    return;
  }
  makeHardLink(step, destination, to, absoluteTo);
}

/** Makes the symbolic link `from` with the text `to`. */
export function makeLink(step: FileStep, from: string, to: string): boolean {
  if (!step.makingChanges(`link files '${from}' -> '${to}'`)) return false;
  try {
    createSymlink(from, to);
  } catch (error) {
    step.failed(`Couldn't link '${to}' to '${from}'. (symlink: ${errorText(error)})`);
    return false;
  }
  step.changed(`Linked files '${from}' -> '${to}'`);
  return true;
}

/** Makes `from` a hard link to `to` (found at `target`). */
export function makeHardLink(step: FileStep, from: string, to: string, target = to): boolean {
  if (!step.makingChanges(`hard link files '${from}' -> '${to}'`)) return false;
  try {
    createHardLink(from, target);
  } catch (error) {
    step.failed(`Failed to hard link '${to}' to '${from}'. (link: ${errorText(error)})`);
    return false;
  }
  step.changed(`Hard linked file '${from}' -> '${to}'`);
  return true;
}

/**
 * Removes the link `path` when its target is gone and the promise says so
 * (`when_no_source => "delete"`, `rmdeadlinks`). Returns true when the link
 * was dealt with (removed, would be removed, or cannot be read).
 */
export function killGhostLink(
  step: FileStep,
  path: string,
  options: Pick<LinkOptions, "whenNoSource" | "rmdeadlinks">,
): boolean {
  const text = readLinkOrUndefined(path);
  if (text === undefined) {
    step.unchanged(`Can't read link '${path}' while checking for deadlinks`);
    return true;
  }
  const target = text.startsWith("/") ? text : `${path.slice(0, path.lastIndexOf("/") + 1)}${text}`;
  const resolved = compressPath(target);
  if (resolved !== undefined && exists(resolved)) return false;
  if (options.whenNoSource !== "delete" && !options.rmdeadlinks) return false;
  step.unchanged(`'${path}' is a link which points to '${text}', but the target doesn't seem to exist`);
  if (!step.makingChanges(`remove dead link '${path}'`)) return true;
  // cf-agent reports the removal whatever unlink says.
  removePath(path);
  step.changed(`Removed dead link '${path}'`);
  return true;
}

/**
 * A path with its symbolic links resolved, up to four levels, as cf-agent's
 * ExpandLinks does; undefined (with an error logged) when a part is missing.
 */
export function expandLinks(step: FileStep, from: string, level = 0): string | undefined {
  if (level >= MAX_LINK_LEVEL) {
    step.env.log.error("Too many levels of symbolic links to evaluate absolute path");
    return undefined;
  }
  const nodes = from.split("/").filter((n) => n !== "");
  let dest = "";
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const last = i === nodes.length - 1;
    if (node === ".") continue;
    if (node === "..") {
      dest += "/..";
      continue;
    }
    dest += `/${node}`;
    let isLink: boolean;
    try {
      isLink = lstatSync(dest).isSymbolicLink();
    } catch (error) {
      step.env.log.error(`Can't stat '${dest}' in ExpandLinks. (lstat: ${errorText(error)})`);
      return undefined;
    }
    if (!isLink) continue;
    const text = readLinkOrUndefined(dest) ?? "";
    if (text.startsWith(".")) {
      dest = `${addSlash(chopLastNode(dest))}${text}`;
      continue;
    }
    dest = text.startsWith("/") ? deleteSlash(text) : deleteSlash(`${addSlash(chopLastNode(dest))}${text}`);
    if (dest === from) return dest;
    // cf-agent checks the rest of the chain resolves, but keeps this level's path.
    if (!last && expandLinks(step, dest, level + 1) === undefined) return undefined;
  }
  return dest;
}
