/**
 * `body executor control` as cf-execd 3.21 reads it: each attribute whose
 * class guard holds, from the `control_executor` variables pre-evaluation
 * defined; 3.21's defaults for the rest. The splay is computed from the
 * host's identity as 3.21 computes it.
 */
import { DEFAULT_NAMESPACE, type EvalContext } from "../eval/context.js";
import { stringHash } from "../eval/functions/utils.js";
import { parseCfInt } from "../eval/numbers.js";
import { type Value, isList, isScalar } from "../eval/values.js";

export type ExecutorFacility =
  | "LOG_USER"
  | "LOG_DAEMON"
  | "LOG_LOCAL0"
  | "LOG_LOCAL1"
  | "LOG_LOCAL2"
  | "LOG_LOCAL3"
  | "LOG_LOCAL4"
  | "LOG_LOCAL5"
  | "LOG_LOCAL6"
  | "LOG_LOCAL7";

export interface ExecutorControl {
  /** Class expressions; the agent runs at a pulse when one of them holds. */
  readonly schedule: readonly string[];
  /** `splaytime` as given, in minutes. */
  readonly splayMinutes: number;
  /** The wait before a scheduled run, in seconds: `splaytime` × 60 × the host's splay fraction. */
  readonly splaySeconds: number;
  /** The command to run; "" means the default (see `defaultExecCommand`). */
  readonly execCommand: string;
  /** Minutes without output from the agent before it is killed. */
  readonly agentExpireAfter: number;
  readonly executorFacility: string;
  readonly mailTo: string;
  readonly mailFrom: string;
  readonly mailSubject: string;
  readonly smtpServer: string;
  readonly mailMaxLines: number;
  readonly mailFilterInclude: readonly string[];
  readonly mailFilterExclude: readonly string[];
  readonly runagentSocketAllowUsers: readonly string[];
}

/** 3.21's default schedule: Min00, Min05 ... Min55 (every five minutes). */
export const DEFAULT_SCHEDULE: readonly string[] = Array.from(
  { length: 12 },
  (_, i) => `Min${String(i * 5).padStart(2, "0")}`,
);

/** `body executor control` when the policy has none: cf-execd 3.21's defaults. */
export function defaultExecutorControl(): ExecutorControl {
  return {
    schedule: DEFAULT_SCHEDULE,
    splayMinutes: 0,
    splaySeconds: 0,
    execCommand: "",
    agentExpireAfter: 120,
    executorFacility: "LOG_USER",
    mailTo: "",
    mailFrom: "",
    mailSubject: "",
    smtpServer: "",
    mailMaxLines: 30,
    mailFilterInclude: [],
    mailFilterExclude: [],
    runagentSocketAllowUsers: [],
  };
}

/** What identifies the host for the splay: `sys.fqhost`, `sys.ipv4` and the uid, as 3.21. */
export interface HostIdentity {
  readonly fqname: string;
  readonly ipAddress: string;
  readonly uid: number;
}

const UINT_MAX = 0xffffffff;

/**
 * The host's splay fraction in [0, 1): the one-at-a-time hash of
 * "fqname+ip+uid" over UINT_MAX, as cf-execd 3.21's GetSplay.
 */
export function splayFraction(identity: HostIdentity): number {
  const hash = stringHash(`${identity.fqname}+${identity.ipAddress}+${identity.uid}`, 0);
  return Math.min(hash, UINT_MAX - 1) / UINT_MAX;
}

/** `splaytime` minutes as the seconds this host waits (truncated, as 3.21's int cast). */
export function splaySeconds(minutes: number, identity: HostIdentity): number {
  return Math.trunc(minutes * 60 * splayFraction(identity));
}

/** A message reading the control body produced. */
export interface ControlMessage {
  readonly level: "error" | "warning" | "verbose" | "debug";
  readonly message: string;
}

/** The host's identity as the context has it (the address: see EvalContext.resolvedAddress). */
export function hostIdentity(ctx: EvalContext, uid: number): HostIdentity {
  const sys = (name: string): string => {
    const value = ctx.getVariable({ ns: DEFAULT_NAMESPACE, scope: "sys", name, indices: [] });
    return value && isScalar(value) ? value.value : "";
  };
  return { fqname: sys("fqhost"), ipAddress: sys("ipv4") || ctx.resolvedAddress, uid };
}

/** IntFromString's reading: an int, or 3.21's unset value when it is not one. */
function intOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  return parseCfInt(text) ?? fallback;
}

/** Reads `body executor control` from the context after pre-evaluation. */
export function readExecutorControl(
  ctx: EvalContext,
  identity: HostIdentity,
  messages: ControlMessage[] = [],
): ExecutorControl {
  const get = (name: string): Value | undefined =>
    ctx.getVariable({ ns: DEFAULT_NAMESPACE, scope: "control_executor", name, indices: [] });
  const text = (name: string): string | undefined => {
    const value = get(name);
    return value && isScalar(value) ? value.value : undefined;
  };
  const list = (name: string): string[] | undefined => {
    const value = get(name);
    if (!value) return undefined;
    if (isList(value)) return [...value.value];
    return isScalar(value) ? [value.value] : undefined;
  };
  const defaults = defaultExecutorControl();
  const regexes = (name: string, kind: string): string[] => {
    const items = list(name) ?? [];
    return items.filter((item) => {
      try {
        new RegExp(item);
        return true;
      } catch (error) {
        messages.push({
          level: "error",
          message: `Invalid regular expression in mailfilter_${kind}: '${item}' (${error instanceof Error ? error.message : String(error)}). Ignoring expression.`,
        });
        return false;
      }
    });
  };
  const splayMinutes = intOf(text("splaytime"), 0);
  const schedule = list("schedule");
  const control: ExecutorControl = {
    schedule: schedule ? [...new Set(schedule)] : defaults.schedule,
    splayMinutes,
    splaySeconds: splaySeconds(splayMinutes, identity),
    execCommand: text("exec_command") ?? defaults.execCommand,
    agentExpireAfter: intOf(text("agent_expireafter"), defaults.agentExpireAfter),
    executorFacility: text("executorfacility") ?? defaults.executorFacility,
    mailTo: text("mailto") ?? "",
    mailFrom: text("mailfrom") ?? "",
    mailSubject: text("mailsubject") ?? "",
    smtpServer: text("smtpserver") ?? "",
    mailMaxLines: intOf(text("mailmaxlines"), defaults.mailMaxLines),
    mailFilterInclude: regexes("mailfilter_include", "include"),
    mailFilterExclude: regexes("mailfilter_exclude", "exclude"),
    runagentSocketAllowUsers: list("runagent_socket_allow_users") ?? [],
  };
  messages.push({ level: "debug", message: `exec_command '${control.execCommand}'` });
  messages.push({ level: "debug", message: `agent_expireafter ${control.agentExpireAfter}` });
  return control;
}

/** Quotes a word for sh. */
function shellQuote(word: string): string {
  return `"${word.replace(/(["\\$`])/g, "\\$1")}"`;
}

/**
 * The command cf-execd runs when `exec_command` is empty. 3.21 runs
 * `"<workdir>/bin/cf-agent" -f failsafe.cf && "<workdir>/bin/cf-agent"
 * -Dfrom_cfexecd[,scheduled_run]`; tend's equivalent runs `tend agent` the
 * same two ways, on the same work directory.
 */
export function defaultExecCommand(tend: readonly string[], workdir: string, scheduled: boolean): string {
  const agent = [...tend, "agent", "-w", workdir].map(shellQuote).join(" ");
  return `${agent} -f failsafe.cf && ${agent} -Dfrom_cfexecd${scheduled ? ",scheduled_run" : ""}`;
}
