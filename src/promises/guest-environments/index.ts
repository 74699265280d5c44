/**
 * `guest_environments` promises, as Debian's cf-agent 3.21 (built with
 * libvirt) keeps them on Linux: each environment type names a hypervisor
 * (xen:///, qemu:///session for kvm, esx://127.0.0.1, vbox:///session,
 * test:///default), domains are created, deleted, started, suspended or
 * stopped there, and `*_net` types create or delete networks. zone, ec2
 * and eucalyptus do nothing on Linux.
 *
 * tend has no libvirt client: the virtualization provider opens only
 * libvirt's in-memory test hypervisor (`test`, `test_net`, and promises
 * without a type); every other hypervisor fails to connect, as it does for
 * cf-agent on a host running none (the ESX driver's password prompt
 * aside). Messages, outcomes and classes are 3.21's.
 */
import type { Outcome } from "../outcome.js";
import { isScalar } from "../../eval/values.js";
import { type Hypervisor, openHypervisor } from "../../providers/virtualization/hypervisor.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import {
  type EnvironmentAttributes,
  NETWORK_TYPES,
  checkSanity,
  isSane,
  readEnvironmentAttributes,
} from "./attributes.js";
import { EnvironmentRun } from "./verdicts.js";
import { verifyDomain, verifyNetwork } from "./verify.js";

const URIS: Readonly<Record<string, string>> = {
  xen: "xen:///",
  xen_net: "xen:///",
  kvm: "qemu:///session",
  kvm_net: "qemu:///session",
  esx: "esx://127.0.0.1",
  esx_net: "esx://127.0.0.1",
  test: "test:///default",
  test_net: "test:///default",
  vbox: "vbox:///session",
  zone: "solaris_zone",
};
const DOMAIN_TYPES = new Set(["xen", "kvm", "esx", "vbox", "test"]);

/** Connections made in this run, by URI (3.21 keeps them for the run; a failed one is tried again). */
type Connections = Map<string, Hypervisor>;

function connect(uri: string, connections: Connections, env: PromiseEnvironment): Hypervisor | undefined {
  const known = connections.get(uri);
  if (known) return known;
  const opened = openHypervisor(uri);
  if (!opened) {
    env.log.error(`Failed to connect to virtualization monitor '${uri}'`);
    return undefined;
  }
  connections.set(uri, opened);
  return opened;
}

function fqhost(env: PromiseEnvironment): string {
  const value = env.ctx.getVariable({ ns: null, scope: "sys", name: "fqhost", indices: [] });
  return value && isScalar(value) ? value.value : "";
}

/** 3.21's VerifyEnvironments. */
function verifyEnvironment(
  promise: ActivePromise,
  env: PromiseEnvironment,
  a: EnvironmentAttributes,
  connections: Connections,
): Outcome {
  // A missing type is libvirt's test hypervisor in 3.21.
  const type = a.type ?? "test";
  const uri = URIS[type];
  if (uri === undefined) {
    env.log.error(`Environment type '${a.type}' not currently supported`);
    return "skipped";
  }
  env.log.verbose(`Selecting environment type '${a.type ?? "(null)"}' '${uri}'`);
  // 3.21 decides on 'down' here but acts on the state as promised (it changes a copy).
  if (!env.ctx.isClassDefined(a.host ?? "")) {
    if (a.state === "create" || a.state === "running") {
      env.log.verbose(
        `This host ''${fqhost(env)}' is not the promised host for the environment '${a.host}', so setting its intended state to 'down'`,
      );
    } else {
      env.log.verbose(
        "This is not the promised host for the environment, but it does not promise a run state, so take promise as valid",
      );
    }
  }
  const isDomain = DOMAIN_TYPES.has(type);
  // zone, ec2 and eucalyptus: nothing on Linux. An unreachable hypervisor gives no outcome either.
  if (!isDomain && !NETWORK_TYPES.has(type)) return "skipped";
  const hypervisor = connect(uri, connections, env);
  if (!hypervisor) return "skipped";
  const run = new EnvironmentRun(promise, env, a, hypervisor);
  return isDomain ? verifyDomain(run) : verifyNetwork(run);
}

/** The type, with the hypervisor connections of one run. */
export function createGuestEnvironmentsPromiseType(): PromiseType {
  const connections: Connections = new Map();
  return {
    name: "guest_environments",
    // A promise failing 3.21's sanity check is checked (and logged) again in every pass.
    oncePerRun: (promise) => isSane(readEnvironmentAttributes(promise)),
    announcesItself: true,
    // 3.21 checks (and complains) in every pass, before the promise's lock.
    everyPass(promise, env) {
      checkSanity(readEnvironmentAttributes(promise), promise, env);
    },
    evaluate(promise, env) {
      const a = readEnvironmentAttributes(promise);
      if (!isSane(a)) return "skipped";
      env.promiseBanner?.();
      return verifyEnvironment(promise, env, a, connections);
    },
  };
}
