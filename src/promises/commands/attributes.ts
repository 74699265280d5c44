/**
 * The attributes of a `commands` promise, read once per iteration: the
 * command line, the `contain` body and the outcome-related options.
 */
import { parseCfInt } from "../../eval/numbers.js";
import type { ActivePromise } from "../contract.js";
import { asBoolean, asStrings, asText } from "../values.js";
import { buildCommandLine, parseShellMode, parseUmask } from "./command-line.js";
import { readGroup, readOwner } from "../../providers/commands/identity.js";
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
  /** An `exec_owner` name that does not exist (the command runs as uid -2). */
  readonly unknownOwner?: string;
  /** An `exec_group` name that does not exist (the command runs as gid -2). */
  readonly unknownGroup?: string;
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
  const owner = readOwner(contain(promise, "exec_owner"));
  const group = readGroup(contain(promise, "exec_group"));
  return {
    commandLine: buildCommandLine(
      promise.promiser,
      promise.text("args"),
      promise.raw("arglist") ? asStrings(promise.value("arglist")) : [],
    ),
    shell: parseShellMode(contain(promise, "useshell")),
    umask: parseUmask(contain(promise, "umask")) ?? DEFAULT_UMASK,
    uid: owner.id,
    gid: group.id,
    chdir: contain(promise, "chdir"),
    chroot: contain(promise, "chroot"),
    timeoutSeconds: timeout === undefined || timeout <= 0 ? undefined : timeout,
    // Modules speak through their output, so it is not shown unless asked for.
    noOutput:
      noOutputText === undefined ? module : asBoolean(promise.bodyValue("contain", "no_output"), false),
    preview: asBoolean(promise.bodyValue("contain", "preview"), false),
    module,
    inform: asBoolean(promise.value("inform"), true),
    ...(owner.unknown === undefined ? {} : { unknownOwner: owner.unknown }),
    ...(group.unknown === undefined ? {} : { unknownGroup: group.unknown }),
  };
}
