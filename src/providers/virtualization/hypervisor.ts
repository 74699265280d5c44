/**
 * Hypervisors as the guest-environment layer sees them: domains (guests)
 * with a state, and networks. tend has no libvirt client, so only one
 * hypervisor can be opened: `test:///default`, libvirt's own in-memory test
 * driver, modelled here on what it does (a fresh hypervisor per connection
 * holding one running persistent domain `test` and one active network
 * `default`; 32 host CPUs; guests of 2 vCPUs and 8 GiB). Any other URI
 * cannot be opened, as with no hypervisor reachable.
 */
import { randomUUID } from "node:crypto";

export type DomainState = "running" | "paused" | "shutoff";

export interface Domain {
  readonly name: string;
  readonly uuid: string;
  /** Set while the domain runs (or is paused). */
  id: number | undefined;
  state: DomainState;
  /** Defined (kept when it stops) rather than transient (gone when it stops). */
  readonly persistent: boolean;
  vcpus: number;
  readonly maxVcpus: number;
  memory: number;
  readonly maxMemory: number;
}

export interface Network {
  readonly name: string;
  active: boolean;
  readonly persistent: boolean;
}

/** What a created domain or network is made of; `name` is all the test driver needs. */
export interface Spec {
  readonly name: string | undefined;
}

/** A connection to a hypervisor. Operations return false where libvirt returns -1. */
export interface Hypervisor {
  /** The active domains, in the order of their ids. */
  activeDomains(): readonly Domain[];
  /** The names of defined domains not running. */
  definedDomains(): readonly string[];
  lookup(name: string): Domain | undefined;
  /** Creates and starts a transient domain; undefined and a reason when refused. */
  createDomain(spec: Spec): { domain?: Domain; error?: string };
  /** How many vCPUs a guest may have on this host. */
  readonly hostMaxVcpus: number;
  setVcpus(domain: Domain, count: number): boolean;
  setMaxMemory(domain: Domain, kib: number): boolean;
  setMemory(domain: Domain, kib: number): boolean;
  /** Stops a domain at once (a transient one is gone). */
  destroy(domain: Domain): boolean;
  /** Asks a running domain to stop (the test driver stops it at once). */
  shutdown(domain: Domain): boolean;
  suspend(domain: Domain): boolean;
  resume(domain: Domain): boolean;
  /** Boots a defined domain that is not running. */
  start(domain: Domain): boolean;
  reboot(domain: Domain): boolean;
  activeNetworks(): readonly string[];
  lookupNetwork(name: string): Network | undefined;
  createNetwork(spec: Spec): Network | undefined;
  destroyNetwork(network: Network): boolean;
}

const GUEST = { vcpus: 2, maxVcpus: 2, memory: 2097152, maxMemory: 8388608 };

class TestHypervisor implements Hypervisor {
  readonly hostMaxVcpus = 32;
  private readonly domains: Domain[] = [
    {
      name: "test",
      uuid: "6695eb01-f6a4-8304-79aa-97f2502e193f",
      id: 1,
      state: "running",
      persistent: true,
      ...GUEST,
    },
  ];
  private readonly networks: Network[] = [{ name: "default", active: true, persistent: true }];
  private nextId = 2;

  activeDomains(): readonly Domain[] {
    return this.domains.filter((d) => d.id !== undefined).sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  }

  definedDomains(): readonly string[] {
    return this.domains.filter((d) => d.id === undefined).map((d) => d.name);
  }

  lookup(name: string): Domain | undefined {
    return this.domains.find((d) => d.name === name);
  }

  createDomain(spec: Spec): { domain?: Domain; error?: string } {
    if (!spec.name) return { error: "XML error: missing domain name" };
    const existing = this.lookup(spec.name);
    if (existing?.id !== undefined)
      return { error: `operation failed: domain '${spec.name}' already exists with uuid ${existing.uuid}` };
    if (existing) this.domains.splice(this.domains.indexOf(existing), 1);
    const domain: Domain = {
      name: spec.name,
      uuid: randomUUID(),
      id: this.nextId++,
      state: "running",
      persistent: false,
      ...GUEST,
    };
    this.domains.push(domain);
    return { domain };
  }

  setVcpus(domain: Domain, count: number): boolean {
    if (count < 1 || count > domain.maxVcpus) return false;
    domain.vcpus = count;
    return true;
  }

  setMaxMemory(domain: Domain, _kib: number): boolean {
    // The test driver changes the maximum of an inactive domain only.
    return domain.id === undefined;
  }

  setMemory(domain: Domain, kib: number): boolean {
    if (kib > domain.maxMemory) return false;
    domain.memory = kib;
    return true;
  }

  private stop(domain: Domain): void {
    domain.id = undefined;
    domain.state = "shutoff";
    if (!domain.persistent) this.domains.splice(this.domains.indexOf(domain), 1);
  }

  destroy(domain: Domain): boolean {
    if (domain.id === undefined) return false;
    this.stop(domain);
    return true;
  }

  shutdown(domain: Domain): boolean {
    if (domain.state !== "running") return false;
    this.stop(domain);
    return true;
  }

  suspend(domain: Domain): boolean {
    if (domain.state !== "running") return false;
    domain.state = "paused";
    return true;
  }

  resume(domain: Domain): boolean {
    if (domain.state !== "paused") return false;
    domain.state = "running";
    return true;
  }

  start(domain: Domain): boolean {
    if (domain.id !== undefined) return false;
    domain.id = this.nextId++;
    domain.state = "running";
    return true;
  }

  reboot(domain: Domain): boolean {
    return domain.state === "running";
  }

  activeNetworks(): readonly string[] {
    return this.networks.filter((n) => n.active).map((n) => n.name);
  }

  lookupNetwork(name: string): Network | undefined {
    return this.networks.find((n) => n.name === name);
  }

  createNetwork(spec: Spec): Network | undefined {
    if (!spec.name || this.lookupNetwork(spec.name)) return undefined;
    const network = { name: spec.name, active: true, persistent: false };
    this.networks.push(network);
    return network;
  }

  destroyNetwork(network: Network): boolean {
    // The test driver stops an inactive network again without complaint.
    network.active = false;
    if (!network.persistent) this.networks.splice(this.networks.indexOf(network), 1);
    return true;
  }
}

/** Opens a connection; undefined when the hypervisor cannot be reached (every URI but test:///default). */
export function openHypervisor(uri: string): Hypervisor | undefined {
  return uri === "test:///default" ? new TestHypervisor() : undefined;
}

/** The `<name>` of a domain or network XML description (what the test driver keys on). */
export function specOf(xml: string): Spec {
  return { name: /<name>\s*([^<\s]+)\s*<\/name>/.exec(xml)?.[1] };
}
