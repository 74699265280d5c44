/**
 * A guest_environments promise's attributes as 3.21 reads them
 * (GetEnvironmentsConstraints) and its sanity checks
 * (EnvironmentsSanityChecks), with their messages.
 */
import type { ActivePromise, PromiseEnvironment } from "../contract.js";
import { promiseRef } from "../promise-ref.js";
import { asStrings, asText } from "../values.js";

export type EnvironmentState = "create" | "delete" | "running" | "suspended" | "down";

export interface EnvironmentAttributes {
  readonly type: string | undefined;
  readonly host: string | undefined;
  /** 3.21 reads a missing state as "create". */
  readonly state: EnvironmentState;
  readonly cpus: number | undefined;
  readonly memory: number | undefined;
  readonly disk: number | undefined;
  readonly spec: string | undefined;
  readonly name: string | undefined;
  readonly addresses: readonly string[];
}

const STATES: readonly EnvironmentState[] = ["create", "delete", "running", "suspended", "down"];
export const NETWORK_TYPES: ReadonlySet<string> = new Set(["xen_net", "kvm_net", "esx_net", "test_net"]);

function intValue(promise: ActivePromise, name: string): number | undefined {
  const text = asText(promise.bodyValue("environment_resources", name));
  if (text === undefined) return undefined;
  const value = Number.parseInt(text, 10);
  return Number.isNaN(value) ? undefined : value;
}

export function readEnvironmentAttributes(promise: ActivePromise): EnvironmentAttributes {
  const state = promise.text("environment_state") as EnvironmentState | undefined;
  return {
    type: promise.text("environment_type"),
    host: promise.text("environment_host"),
    state: state && STATES.includes(state) ? state : "create",
    cpus: intValue(promise, "env_cpus"),
    memory: intValue(promise, "env_memory"),
    disk: intValue(promise, "env_disk"),
    spec: asText(promise.bodyValue("environment_resources", "env_spec")),
    name: asText(promise.bodyValue("environment_interface", "env_name")),
    addresses: asStrings(promise.bodyValue("environment_interface", "env_addresses")),
  };
}

/** Whether 3.21's sanity check passes (quietly: to decide whether the promise acts once per run). */
export function isSane(a: EnvironmentAttributes): boolean {
  const resources = a.cpus !== undefined || a.memory !== undefined || a.disk !== undefined;
  return !(a.spec !== undefined && resources) && a.host !== undefined;
}

/** 3.21's EnvironmentsSanityChecks with its messages; false stops the promise (without an outcome). */
export function checkSanity(
  a: EnvironmentAttributes,
  promise: ActivePromise,
  env: PromiseEnvironment,
): boolean {
  if (a.spec !== undefined && (a.cpus !== undefined || a.memory !== undefined || a.disk !== undefined)) {
    env.log.error("Conflicting promise of both a spec and cpu/memory/disk resources");
    return false;
  }
  if (a.host === undefined) {
    env.log.error("No environment_host defined for environment promise");
    promiseRef(env, "error", promise);
    return false;
  }
  const resources = a.cpus !== undefined || a.memory !== undefined || a.disk !== undefined;
  if (
    a.type !== undefined &&
    NETWORK_TYPES.has(a.type) &&
    (resources || a.name !== undefined || a.addresses.length > 0)
  ) {
    // 3.21 prints its "no value" integers and a missing name as they are in C.
    const noint = (n: number | undefined) => String(n ?? -678);
    env.log.error(
      `Network environment promises computational resources (${noint(a.cpus)},${noint(a.memory)},${noint(a.disk)},${a.name ?? "(null)"})`,
    );
    promiseRef(env, "error", promise);
  }
  return true;
}
