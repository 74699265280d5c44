/**
 * Loading a file for edit_line, with cf-agent's checks: it must be an
 * absolute path to a plain file no bigger than `max_file_size` (0: no
 * limit). With `empty_file_before_editing` the checks still apply but the
 * lines start empty.
 */
import { mayOpen } from "../files/safe-path.js";
import { type Stats, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { PromiseEnvironment } from "../contract.js";
import { errorText } from "../files/step.js";
import { LineList } from "./lines.js";
import type { EditDefaults } from "./session.js";
import { loadEditLines } from "./text-file.js";

/** The lines of `path` for editing, or undefined (after cf-agent's messages) when it cannot be edited. */
export function loadForEditing(
  env: PromiseEnvironment,
  path: string,
  defaults: EditDefaults,
): LineList | undefined {
  if (!isAbsolute(path)) {
    env.log.error(`Relative file name '${path}' was marked for editing but has no invariant meaning`);
    return undefined;
  }
  if (!mayOpen(env, path)) return undefined;
  const lines = checkedLines(env, path, defaults, defaults.emptyBefore);
  return lines && LineList.of(lines);
}

/**
 * The file's lines after the checks (none when `onlyCheck`); undefined when
 * a check fails or it cannot be read.
 */
export function checkedLines(
  env: PromiseEnvironment,
  path: string,
  defaults: Pick<EditDefaults, "maxSize" | "join">,
  onlyCheck: boolean,
): string[] | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    env.log.verbose(`The proposed file '${path}' could not be loaded. (stat: ${errorText(error)})`);
    return undefined;
  }
  if (defaults.maxSize !== 0 && stats.size > defaults.maxSize) {
    env.log.info(
      `File '${path}' is bigger than the edit limit. max_file_size = ${stats.size} > ${defaults.maxSize} bytes`,
    );
    return undefined;
  }
  if (!stats.isFile()) {
    env.log.info(`${path} is not a plain file`);
    return undefined;
  }
  if (onlyCheck) return [];
  try {
    return loadEditLines(path, defaults.join);
  } catch (error) {
    env.log.info(`Couldn't read file '${path}' for editing. (fopen: ${errorText(error)})`);
    return undefined;
  }
}
