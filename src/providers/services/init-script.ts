/**
 * Services run by commands: an init script under /etc/init.d (`init`), the
 * same with Debian's `service` for status and `update-rc.d` for enabling
 * (`debian`), or only the commands given (`base`: `start` or `binary`, and
 * a status command or else the process table searched for `pattern`).
 *
 * Commands given as text (`status => "pgrep foo"`) run through /bin/sh;
 * the tools the provider picks itself run as argument vectors.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type ToolRunner, commandFailure, systemRunner } from "../tool-runner.js";
import type { ActionError, ServiceBackend, ServiceState } from "./service.js";

export type InitFlavour = "init" | "debian" | "base";

export interface CommandService {
  readonly name: string;
  readonly flavour: InitFlavour;
  /** Commands that replace the provider's own, run through /bin/sh. */
  readonly commands?: {
    readonly status?: string;
    readonly start?: string;
    readonly stop?: string;
    readonly restart?: string;
  };
  /** The init script answers `status` (default true). */
  readonly hasstatus?: boolean;
  /** The init script answers `restart` (default false: stop, then start). */
  readonly hasrestart?: boolean;
  /** Started by this program when there is no start command (base). */
  readonly binary?: string;
  /** Looked for in the process table when there is no status command (default: binary, else name). */
  readonly pattern?: string;
  /** Where init scripts are (default /etc/init.d). */
  readonly path?: readonly string[];
  /** Where the rc?.d directories are, for counting start links (default /etc). */
  readonly etc?: string;
}

export interface CommandServiceOptions {
  readonly run?: ToolRunner;
  /** The process table's lines, as `ps -ef` prints them (default: runs it). */
  readonly processTable?: () => readonly string[];
}

/** A command that failed or could not be found out. */
type Argv = readonly string[] | { readonly error: string };

/** The service's init script: `<dir>/<name>`, else `<dir>/<name>.sh`. */
export function findInitScript(name: string, path: readonly string[]): string | { readonly error: string } {
  for (const suffix of ["", ".sh"]) {
    for (const dir of path) {
      const candidate = join(dir, name + suffix);
      if (existsSync(candidate)) return candidate;
    }
  }
  return { error: `Could not find init script for '${name}'` };
}

/** The pid of the first process-table line matching `pattern`. */
export function findPid(table: readonly string[], pattern: string): string | undefined {
  const regex = new RegExp(pattern);
  const line = table.find((entry) => regex.test(entry));
  return line?.trim().split(/\s+/)[1];
}

export function commandServiceBackend(
  service: CommandService,
  options: CommandServiceOptions = {},
): ServiceBackend {
  const run = options.run ?? systemRunner({});
  const table = options.processTable ?? (() => run(["ps", "-ef"]).stdout.split("\n"));
  const given = service.commands ?? {};
  const script = () => findInitScript(service.name, service.path ?? ["/etc/init.d"]);
  const scripted = (verb: string): Argv => {
    if (service.flavour === "base") return { error: "Services must specify a start command or a binary" };
    const found = script();
    return typeof found === "string" ? [found, verb] : found;
  };
  const shell = (command: string): Argv => ["/bin/sh", "-c", command];
  const execute = (argv: Argv): ActionError => {
    if (!("length" in argv)) return argv.error;
    const out = run(argv);
    // A command the user gave is named as they wrote it.
    const shown = argv[0] === "/bin/sh" && argv[1] === "-c" ? argv[2] : undefined;
    return out.status === 0 ? undefined : commandFailure(argv, out, shown);
  };
  const statusCommand = (): Argv | undefined => {
    if (given.status !== undefined) return shell(given.status);
    if (service.flavour === "base" || service.hasstatus === false) return undefined;
    if (service.flavour === "debian") return ["/usr/sbin/service", service.name, "status"];
    return scripted("status");
  };
  const pattern = service.pattern ?? service.binary ?? service.name;
  const backend: ServiceBackend = {
    provider: service.flavour,
    status(): ServiceState | { readonly error: string } {
      const argv = statusCommand();
      if (argv === undefined) return findPid(table(), pattern) === undefined ? "stopped" : "running";
      if (!("length" in argv)) return argv;
      return run(argv).status === 0 ? "running" : "stopped";
    },
    start: () => {
      if (given.start !== undefined) return execute(shell(given.start));
      if (service.flavour === "base")
        return execute(service.binary !== undefined ? [service.binary] : scripted("start"));
      return execute(scripted("start"));
    },
    stop: () => {
      if (given.stop !== undefined) return execute(shell(given.stop));
      if (service.flavour !== "base") return execute(scripted("stop"));
      const pid = findPid(table(), pattern);
      return pid === undefined ? undefined : execute(["kill", pid]);
    },
    restart: () => {
      if (given.restart !== undefined) return execute(shell(given.restart));
      if (service.flavour !== "base" && service.hasrestart === true) return execute(scripted("restart"));
      return backend.stop() ?? backend.start();
    },
  };
  return service.flavour === "debian" ? withUpdateRcD(backend, service, run) : backend;
}

/** Debian's enabling: invoke-rc.d's policy answer, the start links, update-rc.d. */
function withUpdateRcD(backend: ServiceBackend, service: CommandService, run: ToolRunner): ServiceBackend {
  const name = service.name;
  const etc = service.etc ?? "/etc";
  const startLinks = (): number => {
    let count = 0;
    for (const entry of safeList(etc)) {
      if (!/^rc.\.d$/.test(entry)) continue;
      count += safeList(join(etc, entry)).filter(
        (link) => /^S\d\d/.test(link) && link.slice(3) === name,
      ).length;
    }
    return count;
  };
  const steps = (...commands: string[][]): ActionError => {
    for (const argv of commands) {
      const out = run(argv);
      if (out.status !== 0) return commandFailure(argv, out);
    }
    return undefined;
  };
  return {
    ...backend,
    enabled: () => {
      const code = run(["/usr/sbin/invoke-rc.d", "--quiet", "--query", name, "start"]).status;
      if (code === 104 || code === 106) return true;
      if (code === 101 || code === 105) return startLinks() >= 4;
      return false;
    },
    enable: () =>
      steps(["/usr/sbin/update-rc.d", "-f", name, "remove"], ["/usr/sbin/update-rc.d", name, "defaults"]),
    disable: () =>
      sysvRcKnowsDisable(run)
        ? steps(["/usr/sbin/update-rc.d", name, "disable"])
        : steps(
            ["/usr/sbin/update-rc.d", "-f", name, "remove"],
            ["/usr/sbin/update-rc.d", name, "stop", "00", "1", "2", "3", "4", "5", "6", "."],
          ),
  };
}

/** `update-rc.d disable` exists from sysv-rc 2.88 on; without sysv-rc, links are rewritten as stops. */
function sysvRcKnowsDisable(run: ToolRunner): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax
  const query = run(["/usr/bin/dpkg-query", "-W", "--showformat", "${Version}", "sysv-rc"]);
  if (query.status !== 0 || query.stdout.trim() === "") return false;
  return run(["/usr/bin/dpkg", "--compare-versions", query.stdout.trim(), "ge", "2.88"]).status === 0;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
