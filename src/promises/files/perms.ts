/**
 * `perms` bodies: the mode (`mode`, with `rxdirs` for directories), the
 * owner (`owners`: kept when the file's owner is any of them, else set to
 * the first that exists) and the group (`groups`, likewise).
 */
import { type Stats, chmodSync, lchownSync } from "node:fs";
import { asBoolean, asStrings, asText } from "../values.js";
import { groupId, userId } from "./accounts.js";
import { applyMode, formatMode, type ModeMasks, parseModeString } from "./modes.js";
import { errorText, type FileStep } from "./step.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";

/**
 * The mode masks a promise's `perms` body asks for; undefined without a
 * mode. An invalid mode string is fatal, as in 3.21, and gives null.
 */
export function promisedMode(promise: ActivePromise, env: PromiseEnvironment): ModeMasks | undefined | null {
  const text = asText(promise.bodyValue("perms", "mode"));
  if (text === undefined) return undefined;
  const masks = parseModeString(text);
  if (masks) return masks;
  env.fatal(`In attribute 'mode', invalid Unix permission string '${text}'`);
  return null;
}

/** 3.21 warns when a mode is given without saying whether directories get x for r. */
export function warnDefaultRxdirs(promise: ActivePromise, env: PromiseEnvironment): void {
  if (asText(promise.bodyValue("perms", "mode")) === undefined) return;
  if (promise.bodyValue("perms", "rxdirs") !== undefined) return;
  const line = asText(env.ctx.currentFrame().thisVars.get("promise_linenumber")) ?? "0";
  env.log.warning(
    `Using the default value 'false' for attribute rxdirs (promiser: ${promise.promiser}, file: ${promise.bundle.file}:${line}), please set it explicitly`,
  );
}

/** Brings the mode, owner and group of the object (lstat `stats`) to what is promised. */
export function verifyPerms(step: FileStep, stats: Stats, masks: ModeMasks | undefined): void {
  verifyOwnership(step, stats);
  if (!masks || stats.isSymbolicLink()) return;
  const rxdirs = stats.isDirectory() && asBoolean(step.promise.bodyValue("perms", "rxdirs"), false);
  const current = stats.mode & 0o7777;
  const wanted = applyMode(current, masks, rxdirs);
  const { path } = step;
  if (wanted === current) {
    step.kept(`File permissions on '${path}' as promised`);
    return;
  }
  const [from, to] = [formatMode(current), formatMode(wanted)];
  if (!step.makingChanges(`change permissions of '${path}' from ${from} to ${to}`)) return;
  try {
    chmodSync(path, wanted);
    step.changed(`Object '${path}' had permissions ${from}, changed it to ${to}`);
  } catch (error) {
    step.failed(`Failed to change permissions of '${path}'. (chmod: ${errorText(error)})`);
  }
}

/** The id to set: undefined when the current one is promised or none is. */
function wantedId(names: readonly string[], current: number, resolve: (n: string) => number | undefined) {
  const ids = names.map(resolve).filter((id): id is number => id !== undefined);
  if (ids.length === 0 || ids.includes(current)) return undefined;
  return ids[0];
}

function verifyOwnership(step: FileStep, stats: Stats): void {
  const { path, promise } = step;
  const uid = wantedId(asStrings(promise.bodyValue("perms", "owners")), stats.uid, userId);
  const gid = wantedId(asStrings(promise.bodyValue("perms", "groups")), stats.gid, groupId);
  if (uid === undefined && gid === undefined) return;
  const what =
    uid !== undefined && gid !== undefined
      ? `change owner and group of '${path}' to '${uid}:${gid}'`
      : uid !== undefined
        ? `change owner of '${path}' to '${uid}'`
        : `change group of '${path}' to '${gid}'`;
  if (!step.makingChanges(what)) return;
  try {
    lchownSync(path, uid ?? stats.uid, gid ?? stats.gid);
  } catch (error) {
    step.failed(`Cannot set ownership on '${path}'. (chown: ${errorText(error)})`);
    return;
  }
  if (uid !== undefined) step.changed(`Owner of '${path}' was ${stats.uid}, set to ${uid}`);
  if (gid !== undefined) step.changed(`Group of '${path}' was ${stats.gid}, set to ${gid}`);
}
