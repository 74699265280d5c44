/**
 * What of CFEngine 3.21's agent syntax tend does not implement, and how a
 * promise that uses it is treated: never silently kept. The engine gives a
 * promise of such a type, or one using such an attribute, an error line
 * and a not-kept outcome (recorded in the run report with the reason);
 * `tend check` warns about the same places (`./unsupported-check.ts`).
 *
 * Promise types: a type of 3.21's agent syntax is supported exactly when it
 * is registered (`registry.ts`); an unregistered one gets
 * {@link unsupportedPromiseType}. Attributes: the rows below, from an audit
 * of every attribute of 3.21's syntax against the types in src/promises.
 * Attributes 3.21 itself reads and ignores on Linux (reports' `showstate`,
 * `friend_pattern`, `intermittency`; perms' `bsdflags`; packages'
 * `additional_packages`) are not listed: ignoring them is what 3.21 does.
 * A type that comes to implement a listed attribute removes its row.
 */
import type { ActivePromise, PromiseType } from "./contract.js";
import { asText } from "./values.js";

/** One attribute (of a promise type, or of a body a promise uses) tend does not act on. */
export interface UnsupportedAttribute {
  /**
   * `promise` for an attribute of the promise itself, `body` for one of a
   * body a promise uses, `control` for one of a control body.
   */
  readonly of: "promise" | "body" | "control";
  /**
   * The promise type, the body type (the attribute that holds the body has
   * its name), or the control body's type (`agent` for `body agent control`).
   */
  readonly owner: string;
  readonly attribute: string;
  /** Only this value is unsupported (the attribute's other values work). */
  readonly value?: string;
  /** Why, for the user: what tend does not do. */
  readonly reason: string;
}

const UDP_SYSLOG = "tend does not send promise logs to a syslog server (udp_syslog)";

/** A setting of `body agent control` that cf-agent 3.21 acts on in a local run and tend ignores. */
function agentControl(attribute: string, reason: string): UnsupportedAttribute {
  return { of: "control", owner: "agent", attribute, reason };
}

/** The audit's findings (3.21.0's syntax against src/promises). */
export const UNSUPPORTED_ATTRIBUTES: readonly UnsupportedAttribute[] = [
  { of: "body", owner: "action", attribute: "log_kept", value: "udp_syslog", reason: UDP_SYSLOG },
  { of: "body", owner: "action", attribute: "log_repaired", value: "udp_syslog", reason: UDP_SYSLOG },
  { of: "body", owner: "action", attribute: "log_failed", value: "udp_syslog", reason: UDP_SYSLOG },
  agentControl("agentaccess", "tend does not restrict which users may run the agent"),
  agentControl("allclassesreport", "tend does not write state/allclasses.txt"),
  agentControl("secureinput", "tend does not refuse input files owned by others"),
  agentControl("hashupdates", "tend does not change the default of hash updates"),
  agentControl("childlibpath", "tend does not set LD_LIBRARY_PATH for the programs it runs"),
  agentControl("suspiciousnames", "tend does not warn about suspicious file names"),
  agentControl("repchar", "tend does not change the repository's file name character"),
];

const PLACEHOLDERS = new WeakSet<PromiseType>();

/**
 * The stand-in for a promise type of 3.21 that tend does not implement:
 * each promise is evaluated once per run (guards, iteration, `classes`
 * body as for any promise) and is not kept.
 */
export function unsupportedPromiseType(name: string): PromiseType {
  const type: PromiseType = {
    name,
    oncePerRun: true,
    waitsForResolution: true,
    evaluate: () => "failed",
  };
  PLACEHOLDERS.add(type);
  return type;
}

/**
 * Why `promise` cannot be kept by tend (its type or one of its attributes is
 * not implemented), or undefined when nothing it uses is missing.
 */
export function unsupportedReason(promise: ActivePromise, type: PromiseType): string | undefined {
  if (PLACEHOLDERS.has(type)) return `promise type '${type.name}' is not implemented by tend`;
  for (const row of UNSUPPORTED_ATTRIBUTES) {
    if (row.of === "control") continue;
    if (row.of === "promise" ? row.owner === promise.type && uses(promise, row) : bodyUses(promise, row))
      return describe(row);
  }
  return undefined;
}

/** How a row is named in messages: `body action attribute 'log_kept' => "udp_syslog" is not implemented: ...`. */
export function describe(row: UnsupportedAttribute): string {
  const owner =
    row.of === "body" ? `body ${row.owner} ` : row.of === "control" ? `body ${row.owner} control ` : "";
  const value = row.value === undefined ? "" : ` => "${row.value}"`;
  return `${owner}attribute '${row.attribute}'${value} is not implemented: ${row.reason}`;
}

function uses(promise: ActivePromise, row: UnsupportedAttribute): boolean {
  if (promise.raw(row.attribute) === undefined) return false;
  return row.value === undefined || asText(promise.value(row.attribute)) === row.value;
}

function bodyUses(promise: ActivePromise, row: UnsupportedAttribute): boolean {
  if (!promise.body(row.owner)?.attributes.has(row.attribute)) return false;
  return row.value === undefined || asText(promise.bodyValue(row.owner, row.attribute)) === row.value;
}
