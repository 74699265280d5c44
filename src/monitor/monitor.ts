/**
 * One sample of the monitor, as cf-monitord 3.21's loop takes it: the
 * probes, the weekly statistics learned for this 5-minute slot, the
 * classes and variables, and `state/env_data` written (temporary file and
 * rename) in 3.21's line format for the agents:
 *
 *     loadavg_high_dev1          a class
 *     value_loadavg=0.52         a variable, mon.value_loadavg
 *     @listening_ports={'22'}    a list, mon.listening_ports
 *
 * The persistent classes (`_dev2`, `_anomaly`, `_microanomaly`) are also
 * kept for 10 minutes in the work directory's persistent classes, as 3.21
 * keeps them.
 */
import { mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { PersistentClasses } from "../eval/persistent-classes.js";
import { writeFileAtomically } from "../system/atomic.js";
import type { Logger } from "../system/logger.js";
import { History } from "./history.js";
import { SERVICES, slotNames } from "./observables.js";
import { type Listening, type ProbeRoots, ProbeState, type Sample, sample } from "./probes.js";
import {
  classify,
  entropyClass,
  entropyKey,
  type LeapState,
  type Learner,
  leapClass,
  leapDetection,
  learn,
  newLeapState,
  newLearner,
  timeKey,
} from "./statistics.js";

/** `state/cf_incoming.<service>` (3.21 names the file after its table: `www-alt`). */
function connectionFile(statedir: string, direction: "in" | "out", service: string): string {
  const name = service === "www_alt" ? "www-alt" : service;
  return join(statedir, `cf_${direction === "in" ? "incoming" : "outgoing"}.${name}`);
}

/** The packet classes of 3.21's network sniffer (TCPNAMES). */
const SNIFFER_CLASSES = ["icmp", "udp", "dns", "tcpsyn", "tcpack", "tcpfin", "misc"];

/** 3.21's CF_PERSISTENCE: minutes a persistent monitor class lasts. */
export const PERSISTENCE_MINUTES = 10;
/** 3.21's sampling period (SLEEPTIME): 2.5 minutes. */
export const SAMPLE_PERIOD_MS = 150_000;

export interface MonitorOptions {
  readonly statedir: string;
  readonly roots: ProbeRoots;
  /** body monitor control forgetrate (0.6 by default, as cf-monitord sets it at start). */
  readonly forgetRate?: number;
  /** Where "Updated averages at '<slot>'" goes (info), as cf-monitord -I prints it. */
  readonly logger?: Logger;
  /** drand48's draw, injected for tests. */
  readonly random?: () => number;
  /**
   * The measurements promises, kept after the probes: they set the weekly
   * slots (by handle) and return the lines they add after the observables'.
   */
  readonly measure?: (weekly: Map<string, number>, now: Date) => readonly string[];
  /** Weekly measurement handles, given slots after the built-in ones. */
  readonly weekly?: readonly string[];
}

export interface SampleResult {
  readonly sample: Sample;
  readonly lines: readonly string[];
  readonly persistent: readonly string[];
}

export class Monitor {
  private readonly state = new ProbeState();
  private readonly history: History;
  private readonly learner: Learner;
  private readonly names: string[];
  private readonly leap: LeapState;

  constructor(private readonly options: MonitorOptions) {
    this.history = new History(options.statedir);
    this.names = slotNames(options.weekly);
    this.learner = newLearner(this.names.length, this.history.readAge());
    this.leap = newLeapState(this.names.length);
    // As cf-monitord at start: the connection lists of the last run are emptied.
    mkdirSync(options.statedir, { recursive: true, mode: 0o700 });
    for (const direction of ["in", "out"] as const)
      for (const service of SERVICES)
        writeFileAtomically(connectionFile(options.statedir, direction, service.name), "", 0o600);
  }

  /** Takes one sample at `now`, publishes env_data and stores the statistics. */
  sampleOnce(now: Date, values?: (s: Sample) => void): SampleResult {
    const taken = sample(this.options.roots, this.state, Math.floor(now.getTime() / 1000));
    const weekly = new Map<string, number>();
    const measured = this.options.measure?.(weekly, now) ?? [];
    for (const [handle, value] of weekly) {
      const slot = this.names.indexOf(handle);
      if (slot >= 0) taken.values[slot] = value;
    }
    values?.(taken);
    const key = timeKey(now);
    const lastWeek = this.history.read(key, this.names);
    const forget = this.options.forgetRate ?? 0.6;
    const stats = learn(this.learner, taken.values, lastWeek, forget, this.options.random ?? Math.random);
    this.history.write(key, this.names, stats, Math.floor(now.getTime() / 1000));
    this.history.writeAge(this.learner.age);
    this.options.logger?.info(`Updated averages at '${key}'`);
    leapDetection(this.leap, taken.values);

    // Per service, all "in" then all "out" (SaveNetworkData); then the packet
    // classes of the sniffer, which without tcpdump saw nothing (low).
    const entropies: string[] = [];
    for (const direction of ["in", "out"] as const) {
      for (const service of SERVICES) {
        const seen = taken.connections.get(`${service.name}_${direction}`) ?? [];
        // 3.21 keeps a bigger list of the last 40 minutes instead (and sets no class).
        const file = connectionFile(this.options.statedir, direction, service.name);
        const size = seen.reduce((n, l) => n + Buffer.byteLength(l, "latin1"), 0);
        try {
          const st = statSync(file);
          if (size < st.size && now.getTime() < st.mtimeMs + 40 * 60_000) continue;
        } catch {
          // no file yet
        }
        writeFileAtomically(file, seen.map((l) => `${l}\n`).join(""), 0o600);
        entropies.push(entropyClass(service.name, direction, seen.map(entropyKey)));
      }
    }
    const sniffed: string[] = [];
    for (const direction of ["in", "out"] as const) {
      for (const packets of SNIFFER_CLASSES) sniffed.push(entropyClass(packets, direction, []));
    }
    const lines: string[] = [];
    const persistent: string[] = [];
    this.names.forEach((name, i) => {
      const value = taken.values[i] ?? 0;
      const weekly = stats[i];
      const local = this.learner.local[i];
      if (!weekly || !local) return;
      const { classes, sigma, noVariation } = classify(name, value, weekly, local);
      if (noVariation) {
        const purge = new RegExp(`^entropy_${name}.*$`);
        for (const list of [entropies, sniffed]) {
          const at = list.findIndex((e) => purge.test(e));
          if (at >= 0) list.splice(at, 1);
        }
      }
      for (const c of classes) {
        lines.push(c.name);
        if (c.persistent) persistent.push(c.name);
      }
      lines.push(
        `value_${name}=${value.toFixed(2)}`,
        `av_${name}=${weekly.expect.toFixed(2)}`,
        `dev_${name}=${sigma.toFixed(2)}`,
      );
      const ldt = leapClass(this.leap, i, name, value, weekly.expect);
      if (ldt) {
        lines.push(ldt);
        persistent.push(ldt);
      }
    });
    this.learner.iteration++;
    lines.push(...measured);
    const { listening } = taken;
    const shown = (items: readonly string[]) => `{${items.map((i) => `'${i}'`).join(",")}}`;
    const openPorts = (name: string, ports: readonly string[]) => {
      const line = `@${name}=${shown(ports)}`;
      if (line.length <= 1500) lines.push(line);
    };
    const ports = (list: readonly Listening[]) => list.map((l) => l.port);
    openPorts("listening_ports", listening.all);
    openPorts("listening_udp6_ports", ports(listening.udp6));
    openPorts("listening_udp4_ports", ports(listening.udp4));
    openPorts("listening_tcp6_ports", ports(listening.tcp6));
    openPorts("listening_tcp4_ports", ports(listening.tcp4));
    if (listening.tcp6.length + listening.tcp4.length <= 512) {
      for (const l of listening.tcp6) lines.push(`tcp6_port_addr[${l.port}]=${l.address}`);
      for (const l of listening.tcp4) lines.push(`tcp4_port_addr[${l.port}]=${l.address}`);
    }
    for (const l of listening.udp6) lines.push(`udp6_port_addr[${l.port}]=${l.address}`);
    for (const l of listening.udp4) lines.push(`udp4_port_addr[${l.port}]=${l.address}`);
    lines.push(...entropies, ...sniffed);

    mkdirSync(this.options.statedir, { recursive: true, mode: 0o700 });
    writeFileAtomically(join(this.options.statedir, "env_data"), lines.map((l) => `${l}\n`).join(""), 0o600);
    writeFileAtomically(
      join(this.options.statedir, "cf_users"),
      taken.users.map((u) => `${u}\n`).join(""),
      0o600,
    );
    if (persistent.length > 0) {
      const store = new PersistentClasses(this.options.statedir, () => now.getTime());
      store.load();
      for (const name of persistent)
        store.add(name, PERSISTENCE_MINUTES, ["monitoring", "source=environment"]);
      store.save();
    }
    return { sample: taken, lines, persistent };
  }
}
