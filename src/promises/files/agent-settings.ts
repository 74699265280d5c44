/**
 * What `body agent control` says about files promises: the default
 * `compare` of copies (`defaultcopytype`), the backup repository
 * (`default_repository`), and the files copied once per run
 * (`files_single_copy`) or defining `auto_` classes (`files_auto_define`).
 */
import type { PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";

function list(env: PromiseEnvironment, name: string): readonly string[] {
  return asStrings(env.controlValue?.("agent", name));
}

export function defaultCopyType(env: PromiseEnvironment): string | undefined {
  return list(env, "defaultcopytype")[0];
}

export function defaultRepository(env: PromiseEnvironment): string | undefined {
  return list(env, "default_repository")[0];
}

export function filesSingleCopy(env: PromiseEnvironment): readonly string[] {
  return list(env, "files_single_copy");
}

export function filesAutoDefine(env: PromiseEnvironment): readonly string[] {
  return list(env, "files_auto_define");
}
