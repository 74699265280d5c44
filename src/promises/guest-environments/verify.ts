/**
 * 3.21's VerifyVirtDomain and VerifyVirtNetwork with the operations they
 * call (CreateVirtDom, DeleteVirt, RunningVirt, SuspendedVirt, DownVirt,
 * CreateVirtNetwork, DeleteVirtNetwork), over a hypervisor of the
 * virtualization provider: the same messages, levels and outcomes.
 */
import type { Outcome } from "../outcome.js";
import { type Domain, specOf } from "../../providers/virtualization/hypervisor.js";
import type { EnvironmentRun } from "./verdicts.js";

function defaultDomainXml(name: string): string {
  return `<domain type='test'>  <name>${name}</name>  <memory>8388608</memory>  <currentMemory>2097152</currentMemory>  <vcpu>2</vcpu>  <os>    <type>hvm</type>  </os></domain>`;
}

function defaultNetworkXml(name: string): string {
  return `<network><name>${name}</name><bridge name="virbr0" /><forward mode="nat"/><ip address="192.168.122.1" netmask="255.255.255.0"><dhcp><range start="192.168.122.2" end="192.168.122.254" /></dhcp></ip></network>`;
}

function showDomains(run: EnvironmentRun): void {
  const { log } = run.env;
  const active = run.hypervisor.activeDomains();
  log.verbose(`Found ${active.length} running guest environments on this host (including enclosure)`);
  for (const domain of active) {
    log.verbose(`Found a running virtual domain with id ${domain.id}`);
    log.verbose(`Found a running virtual domain called '${domain.name}'`);
  }
  const dormant = run.hypervisor.definedDomains();
  log.verbose(`Found ${dormant.length} dormant guest environments on this host`);
  for (const name of dormant) log.verbose(`Found a suspended, domain environment called '${name}'`);
}

/** CPUs and memory of a domain just created (CreateVirtDom). */
function sizeCreated(run: EnvironmentRun, domain: Domain): void {
  const { log } = run.env;
  const { cpus, memory, disk } = run.a;
  const hv = run.hypervisor;
  if (cpus !== undefined) {
    if (cpus > hv.hostMaxVcpus)
      log.info(
        `The promise to allocate ${cpus} CPUs in domain '${run.name}' cannot be kept - only ${hv.hostMaxVcpus} exist on the host`,
      );
    else if (!hv.setVcpus(domain, cpus)) log.info(`Unable to adjust CPU count to ${cpus}`);
    else log.info(`Verified that environment CPU count is now ${cpus}`);
  }
  if (memory !== undefined) setMemory(run, domain, memory);
  if (disk !== undefined) log.verbose("Info: env_disk parameter is not currently supported on this platform");
}

function setMemory(run: EnvironmentRun, domain: Domain, memory: number): void {
  const { log } = run.env;
  if (!run.hypervisor.setMaxMemory(domain, memory)) log.info(` Unable to set the memory limit to ${memory}`);
  else log.info(`Setting the memory limit to ${memory}`);
  if (!run.hypervisor.setMemory(domain, memory)) log.info(` Unable to set the current memory to ${memory}`);
}

function createDomain(run: EnvironmentRun): Outcome {
  const { log } = run.env;
  const hv = run.hypervisor;
  const running = hv.activeDomains().find((d) => d.name === run.name);
  if (running)
    return run.verdict("verbose", "kept", `Found a running environment called '${run.name}' - promise kept`);
  for (const name of hv.definedDomains())
    if (name === run.name)
      log.info(`Found an existing, but suspended, environment id = ${name}, called '${name}'`);
  if (run.a.spec === undefined) log.verbose("No spec file is promised, so reverting to default settings");
  const xml = run.a.spec ?? defaultDomainXml(run.name);
  const created = hv.createDomain(specOf(xml));
  if (!created.domain) {
    run.verdict(
      "error",
      "failed",
      `Failed to create a virtual domain '${run.name}' - check spec for errors: '${created.error ?? ""}'`,
    );
    log.verbose(`Quoted spec file: ${xml}`);
    return run.result;
  }
  run.verdict("verbose", "repaired", `Created a virtual domain '${run.name}'`);
  sizeCreated(run, created.domain);
  return run.result;
}

function deleteDomain(run: EnvironmentRun): Outcome {
  const domain = run.hypervisor.lookup(run.name);
  if (!domain)
    return run.verdict("verbose", "kept", `No such virtual domain called '${run.name}' - promise kept`);
  if (!run.hypervisor.destroy(domain))
    return run.verdict("error", "failed", `Failed to delete virtual domain '${run.name}'`);
  return run.verdict("verbose", "repaired", `Deleted virtual domain '${run.name}'`);
}

function runningDomain(run: EnvironmentRun): Outcome {
  const hv = run.hypervisor;
  const domain = hv.lookup(run.name);
  if (!domain) {
    run.env.log.verbose(`Virtual domain '${run.name}' cannot be located, attempting to recreate`);
    return createDomain(run);
  }
  if (domain.state === "running")
    run.verdict("verbose", "kept", `Virtual domain '${run.name}' running - promise kept`);
  else if (domain.state === "paused") {
    if (!hv.resume(domain))
      return run.verdict(
        "verbose",
        "interrupted",
        `Virtual domain '${run.name}' failed to resume after suspension`,
      );
    run.verdict("verbose", "repaired", `Virtual domain '${run.name}' was suspended, resuming`);
  } else {
    if (!hv.start(domain))
      return run.verdict(
        "verbose",
        "interrupted",
        `Virtual domain '${run.name}' failed to resume after halting`,
      );
    run.verdict("verbose", "repaired", `Virtual domain '${run.name}' was inactive, booting...`);
  }
  resizeRunning(run, domain);
  return run.result;
}

/** CPUs and memory of a domain found (RunningVirt). */
function resizeRunning(run: EnvironmentRun, domain: Domain): void {
  const { log } = run.env;
  const { cpus, memory, disk } = run.a;
  if (cpus !== undefined && cpus > 0) {
    if (!run.hypervisor.setVcpus(domain, cpus)) log.info(` Unable to set the number of cpus to ${cpus}`);
    else log.info(`Setting the number of virtual cpus to ${cpus}`);
  }
  if (memory !== undefined) setMemory(run, domain, memory);
  if (disk !== undefined) log.verbose("Info: env_disk parameter is not currently supported on this platform");
}

function suspendedDomain(run: EnvironmentRun): Outcome {
  const domain = run.hypervisor.lookup(run.name);
  if (!domain)
    return run.verdict(
      "verbose",
      "kept",
      `Virtual domain '${run.name}' cannot be found - take promise as kept`,
    );
  if (domain.state === "paused")
    return run.verdict("verbose", "kept", `Virtual domain '${run.name}' is suspended - promise kept`);
  if (domain.state === "shutoff")
    return run.verdict("verbose", "kept", `Virtual domain '${run.name}' is down - promise kept`);
  if (!run.hypervisor.suspend(domain))
    return run.verdict("verbose", "interrupted", `Virtual domain '${run.name}' failed to suspend`);
  return run.verdict("verbose", "repaired", `Virtual domain '${run.name}' running, suspending`);
}

function downDomain(run: EnvironmentRun): Outcome {
  const domain = run.hypervisor.lookup(run.name);
  if (!domain)
    return run.verdict(
      "verbose",
      "kept",
      `Virtual domain '${run.name}' cannot be found - take promise as kept`,
    );
  if (domain.state === "shutoff")
    return run.verdict("verbose", "kept", `Virtual domain '${run.name}' is down - promise kept`);
  if (domain.state === "paused")
    return run.verdict(
      "verbose",
      "interrupted",
      `Virtual domain '${run.name}' is suspended - ignoring promise`,
    );
  if (!run.hypervisor.shutdown(domain))
    return run.verdict("verbose", "interrupted", `Virtual domain '${run.name}' failed to shutdown`);
  return run.verdict("verbose", "repaired", `Virtual domain '${run.name}' running, terminating`);
}

export function verifyDomain(run: EnvironmentRun): Outcome {
  showDomains(run);
  switch (run.a.state) {
    case "create":
      return createDomain(run);
    case "delete":
      return deleteDomain(run);
    case "running":
      return runningDomain(run);
    case "suspended":
      return suspendedDomain(run);
    case "down":
      return downDomain(run);
  }
}

export function verifyNetwork(run: EnvironmentRun): Outcome {
  const hv = run.hypervisor;
  const networks = hv.activeNetworks();
  run.env.log.verbose(`Detected ${networks.length} active networks`);
  if (run.a.state === "create") {
    for (const name of networks) run.env.log.verbose(`Discovered a running network '${name}'`);
    if (networks.includes(run.name))
      return run.verdict("verbose", "kept", `Network '${run.name}' exists - promise kept`);
    const created = hv.createNetwork(specOf(run.a.spec ?? defaultNetworkXml(run.name)));
    if (!created) return run.verdict("error", "failed", `Unable to create network '${run.name}'`);
    return run.verdict("info", "repaired", `Created network '${run.name}' - promise repaired`);
  }
  if (run.a.state === "delete") {
    const network = hv.lookupNetwork(run.name);
    if (!network)
      return run.verdict(
        "verbose",
        "kept",
        `Couldn't find a network called '${run.name}' - promise assumed kept`,
      );
    if (!hv.destroyNetwork(network))
      return run.verdict("error", "failed", `Network deletion of '${run.name}' failed`);
    return run.verdict("info", "repaired", `Deleted network '${run.name}' - promise repaired`);
  }
  run.env.log.info("No recognized state specified for this network environment");
  return "skipped";
}
