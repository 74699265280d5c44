/**
 * The attributes of a `commands` promise, read once per iteration: the
 * command line, the `contain` body and the outcome-related options.
 */
import { findGroup, findUser } from "../../eval/functions/users.js";
import { parseCfInt } from "../../eval/numbers.js";
import type { ActivePromise } from "../contract.js";
import { asBoolean, asStrings, asText } from "../values.js";
import { buildCommandLine, parseShellMode, parseUmask } from "./command-line.js";
import type { ShellMode } from "../../eval/functions/exec.js";

export interface CommandAttributes {
  readonly commandLine: string;
  readonly shell: ShellMode;
  readonly umask: number;
  readonly uid?: number;
  readonly gid?: number;
  readonly chdir?: string;
  readonly chroot?: string;
  readonly timeoutSeconds?: number;
  readonly noOutput: boolean;
  readonly preview: boolean;
  readonly module: boolean;
  /** Whether execution is logged at `info` (else `verbose`). */
  readonly inform: boolean;
  /** An owner or group that does not exist. */
  readonly unknownIdentity?: string;
}

/** What commands run with when the policy sets no umask (3.21 runs them with 077). */
const DEFAULT_UMASK = 0o077;

function contain(promise: ActivePromise, name: string): string | undefined {
  return asText(promise.bodyValue("contain", name));
}

export function readCommandAttributes(promise: ActivePromise): CommandAttributes {
  const module = asBoolean(promise.value("module"), false);
  const noOutputText = contain(promise, "no_output");
  const timeout = parseCfInt(contain(promise, "exec_timeout") ?? "");
  const owner = contain(promise, "exec_owner");
  const group = contain(promise, "exec_group");
  const uid = owner === undefined ? undefined : findUser(owner)?.uid;
  const gid = group === undefined ? undefined : findGroup(group)?.gid;
  const unknownIdentity =
    owner !== undefined && uid === undefined
      ? owner
      : group !== undefined && gid === undefined
        ? group
        : undefined;
  return {
    commandLine: buildCommandLine(
      promise.promiser,
      promise.text("args"),
      promise.raw("arglist") ? asStrings(promise.value("arglist")) : [],
    ),
    shell: parseShellMode(contain(promise, "useshell")),
    umask: parseUmask(contain(promise, "umask")) ?? DEFAULT_UMASK,
    uid,
    gid,
    chdir: contain(promise, "chdir"),
    chroot: contain(promise, "chroot"),
    timeoutSeconds: timeout === undefined || timeout <= 0 ? undefined : timeout,
    // Modules speak through their output, so it is not shown unless asked for.
    noOutput:
      noOutputText === undefined ? module : asBoolean(promise.bodyValue("contain", "no_output"), false),
    preview: asBoolean(promise.bodyValue("contain", "preview"), false),
    module,
    inform: asBoolean(promise.value("inform"), true),
    ...(unknownIdentity === undefined ? {} : { unknownIdentity }),
  };
}
