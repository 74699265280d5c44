/**
 * `perms` bodies read for checking: the mode masks (with `rxdirs`), and
 * the promised owners and groups resolved to ids, as cf-agent reads them
 * (`*` or nothing means "any", an unknown name stays unknown).
 */
import { asBoolean, asStrings, asText } from "../values.js";
import { type ModeMasks, parseModeString } from "../../providers/files/mode.js";
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { accountsOf } from "./run-state.js";

/** A promised owner or group: an id, any (`*`, or none promised), or a name that has no id. */
export type AccountId = number | "same" | "unknown";

export interface PermsSpec {
  readonly masks: ModeMasks | undefined;
  readonly rxdirs: boolean;
  readonly owners: readonly AccountId[];
  readonly groups: readonly AccountId[];
}

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

function accountIds(names: readonly string[], resolve: (name: string) => number | undefined): AccountId[] {
  if (names.length === 0) return ["same"];
  return names.map((name) => (name === "*" ? "same" : (resolve(name) ?? "unknown")));
}

/** The promise's perms body as a spec (masks already validated by `promisedMode`). */
export function readPermsSpec(
  promise: ActivePromise,
  env: PromiseEnvironment,
  masks: ModeMasks | undefined,
): PermsSpec {
  const accounts = accountsOf(env);
  return {
    masks,
    rxdirs: asBoolean(promise.bodyValue("perms", "rxdirs"), false),
    owners: accountIds(asStrings(promise.bodyValue("perms", "owners")), (name) => accounts.userId(name)),
    groups: accountIds(asStrings(promise.bodyValue("perms", "groups")), (name) => accounts.groupId(name)),
  };
}
