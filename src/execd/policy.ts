/**
 * Loading cf-execd's policy: read and pre-evaluated with the agent's load
 * steps (body common control, inputs, augments, common bundles) as the
 * `executor` program, checked as cf-promises checks it, then `body
 * executor control` read. An invalid policy comes back as diagnostics.
 */
import { statSync } from "node:fs";
import { DEFAULT_NAMESPACE } from "../eval/context.js";
import { isScalar } from "../eval/values.js";
import type { Diagnostic } from "../language/diagnostics.js";
import { loadCheckedPolicy } from "../loader/checked.js";
import type { Logger } from "../system/logger.js";
import { type ControlMessage, type ExecutorControl, hostIdentity, readExecutorControl } from "./control.js";

export interface LoadExecdPolicyOptions {
  /** The entry file (`-f`); a bare name is taken in the input directory. */
  readonly file: string;
  readonly workdir: string;
  readonly inputDir?: string;
  readonly logger: Logger;
  readonly defines?: readonly string[];
  readonly negates?: readonly string[];
  /** The uid in the splay's identity (the process's by default). */
  readonly uid?: number;
}

export type LoadedExecdPolicy =
  | {
      readonly ok: true;
      readonly control: ExecutorControl;
      /** Every policy file read, for noticing a change. */
      readonly sources: readonly string[];
      /** `sys.ipv4`, for the mail's subject. */
      readonly ipAddress: string;
      /** `cfruncommand` of `body server control`: what a local runagent request runs. */
      readonly localRunCommand: string | undefined;
      readonly diagnostics: readonly Diagnostic[];
    }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

/** Loads the policy and reads `body executor control`; never throws for problems in the policy. */
export function loadExecdPolicy(options: LoadExecdPolicyOptions): LoadedExecdPolicy {
  const { logger } = options;
  const checked = loadCheckedPolicy({
    file: options.file,
    inputDir: options.inputDir ?? `${options.workdir}/inputs`,
    workdir: options.workdir,
    program: "executor",
    logger,
    defines: options.defines,
    negates: options.negates,
  });
  if (!checked.ok) return checked;
  const { loaded, diagnostics } = checked;
  const messages: ControlMessage[] = [];
  const uid = options.uid ?? (typeof process.getuid === "function" ? process.getuid() : 0);
  const identity = hostIdentity(loaded.context, uid);
  const control = readExecutorControl(loaded.context, identity, messages);
  for (const m of messages) logger.log(m.level, m.message);
  const runCommand = loaded.context.getVariable({
    ns: DEFAULT_NAMESPACE,
    scope: "control_server",
    name: "cfruncommand",
    indices: [],
  });
  return {
    ok: true,
    control,
    sources: loaded.set.files.map((f) => f.source.path),
    ipAddress: identity.ipAddress,
    localRunCommand: runCommand && isScalar(runCommand) ? runCommand.value : undefined,
    diagnostics,
  };
}

/**
 * A stamp of the policy files' state (path, size, mtime): when it changes,
 * the daemon reloads. 3.21 watches `policy_validated`'s timestamp, which
 * cf-agent writes after validating new policy; tend watches the files.
 */
export function policyStamp(files: readonly string[]): string {
  return files
    .map((file) => {
      try {
        const st = statSync(file);
        return `${file}:${st.size}:${st.mtimeMs}`;
      } catch {
        return `${file}:absent`;
      }
    })
    .join("\n");
}
