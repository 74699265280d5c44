/**
 * A sandbox where packages and init scripts can be installed, removed,
 * started and stopped without touching the machine: a temporary directory
 * holding copies of /etc (its apt sources replaced by a local repository,
 * its /etc/init.d emptied) and /var/lib/dpkg, and empty /var/lib/apt,
 * /var/cache/apt, /var/log and /srv; commands run in a private mount
 * namespace (`unshare -m`) where the copies are bound over the real
 * directories. The sandbox itself is bound at /mnt inside.
 *
 * Packages are tiny .deb files built here with `dpkg-deb --build`: each
 * installs `/srv/<name>/VERSION`, and a local repository (`dpkg-scanpackages`
 * then `apt-get update` from `file:`) offers them to apt. No network.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the sandbox is seen from inside. */
export const INSIDE = "/mnt";

/** [real directory, copy in the sandbox] bound over each other inside. */
const COVERED: readonly [string, string][] = [
  ["/etc", "etc"],
  ["/var/lib/dpkg", "dpkg"],
  ["/var/lib/apt", "apt-lib"],
  ["/var/cache/apt", "apt-cache"],
  ["/var/log", "log"],
  ["/srv", "srv"],
];

export interface SandboxRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** One package version to build: `name_version_all.deb`, installing /srv/<name>/VERSION. */
export interface DebSpec {
  readonly name: string;
  readonly version: string;
  /** A configuration file it installs (`/etc/<name>.conf`), for purge scenarios. */
  readonly conffile?: boolean;
}

/** Why the sandbox cannot be made here, or undefined when it can. */
export function debSandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root (mount namespaces)";
  const probe = spawnSync("unshare", ["-m", "--propagation", "private", "true"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return `unshare -m is not available: ${probe.stderr ?? ""}`.trim();
  for (const tool of ["dpkg-deb", "dpkg-scanpackages", "apt-get", "dpkg-query", "update-rc.d"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `${tool} is absent`;
  }
  return undefined;
}

function must(run: { status: number | null; stderr: string | Buffer }, what: string): void {
  if (run.status !== 0) throw new Error(`${what} failed: ${run.stderr.toString()}`);
}

export class DebSandbox {
  readonly dir: string;

  constructor(debs: readonly DebSpec[] = []) {
    this.dir = mkdtempSync(join(tmpdir(), "tend-debs-"));
    must(spawnSync("cp", ["-a", "/etc", this.path("etc")]), "copying /etc");
    must(spawnSync("cp", ["-a", "/var/lib/dpkg", this.path("dpkg")]), "copying /var/lib/dpkg");
    for (const sub of [
      "apt-lib/lists/partial",
      "apt-cache/archives/partial",
      "log/apt",
      "srv",
      "repo",
      "build",
    ])
      mkdirSync(this.path(sub), { recursive: true });
    this.configureApt();
    rmSync(this.path("etc/init.d"), { recursive: true, force: true });
    mkdirSync(this.path("etc/init.d"));
    for (const deb of debs) this.buildDeb(deb);
    if (debs.length > 0) this.publish();
  }

  /** A path in the sandbox, as seen from outside. */
  path(...parts: string[]): string {
    return join(this.dir, ...parts);
  }

  /** A path in the sandbox, as seen from inside. */
  inside(...parts: string[]): string {
    return join(INSIDE, ...parts);
  }

  /** apt with only the local repository, no hooks or proxies of the machine. */
  private configureApt(): void {
    const apt = this.path("etc/apt");
    for (const sub of ["sources.list.d", "apt.conf.d", "preferences.d"]) {
      rmSync(join(apt, sub), { recursive: true, force: true });
      mkdirSync(join(apt, sub));
    }
    writeFileSync(join(apt, "sources.list"), `deb [trusted=yes] file:${this.inside("repo")} ./\n`);
    writeFileSync(
      join(apt, "apt.conf.d/00sandbox"),
      'APT::Sandbox::User "root";\nAcquire::Languages "none";\n',
    );
  }

  /** Builds `repo/<name>_<version>_all.deb`. */
  buildDeb(deb: DebSpec): string {
    const root = this.path("build", `${deb.name}-${deb.version}`);
    mkdirSync(join(root, "DEBIAN"), { recursive: true });
    mkdirSync(join(root, "srv", deb.name), { recursive: true });
    writeFileSync(join(root, "srv", deb.name, "VERSION"), `${deb.version}\n`);
    const control = [
      `Package: ${deb.name}`,
      `Version: ${deb.version}`,
      "Architecture: all",
      "Maintainer: tend tests <tests@example.invalid>",
      "Priority: optional",
      "Section: misc",
      `Description: tend test package ${deb.name}`,
      "",
    ];
    writeFileSync(join(root, "DEBIAN", "control"), control.join("\n"));
    if (deb.conffile) {
      mkdirSync(join(root, "etc"), { recursive: true });
      writeFileSync(join(root, "etc", `${deb.name}.conf`), `version=${deb.version}\n`);
      writeFileSync(join(root, "DEBIAN", "conffiles"), `/etc/${deb.name}.conf\n`);
    }
    const out = this.path("repo", `${deb.name}_${deb.version}_all.deb`);
    must(spawnSync("dpkg-deb", ["--root-owner-group", "--build", root, out]), `building ${deb.name}`);
    return out;
  }

  /** Indexes the repository and lets apt read it. */
  publish(): void {
    const scan = spawnSync("dpkg-scanpackages", ["--multiversion", "."], { cwd: this.path("repo") });
    must(scan, "dpkg-scanpackages");
    writeFileSync(this.path("repo", "Packages"), scan.stdout);
    const update = this.run(["apt-get", "-q", "update"]);
    if (update.status !== 0) throw new Error(`apt-get update failed: ${update.stderr}`);
  }

  /** Writes an executable init script into the sandbox's /etc/init.d. */
  writeInitScript(name: string, body: string): void {
    const path = this.path("etc/init.d", name);
    writeFileSync(path, body);
    chmodSync(path, 0o755);
  }

  /** The .deb files built, by name. */
  debs(): string[] {
    return readdirSync(this.path("repo")).filter((f) => f.endsWith(".deb"));
  }

  private enter(): string {
    const steps = [`mount --bind "$0" ${INSIDE}`];
    for (const [dir, copy] of COVERED) steps.push(`mount --bind ${INSIDE}/${copy} ${dir}`);
    // `service` hands over to systemctl when /run/systemd/system exists.
    steps.push("{ [ ! -d /run/systemd ] || mount -t tmpfs tmpfs /run/systemd; }");
    steps.push('exec "$@"');
    return steps.join(" && ");
  }

  /** Runs a program inside the sandbox's mount namespace. */
  run(command: readonly string[], env?: Readonly<Record<string, string>>): SandboxRun {
    const argv = ["-m", "--propagation", "private", "sh", "-c", this.enter(), this.dir, ...command];
    const run = spawnSync("unshare", argv, {
      encoding: "utf8",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive", ...env },
    });
    return { status: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
  }

  /** Runs a shell script inside; throws when it fails. */
  shell(script: string): string {
    const run = this.run(["sh", "-ec", script]);
    if (run.status !== 0) throw new Error(`sandbox script failed: ${run.stderr}`);
    return run.stdout;
  }

  /** `dpkg-query`'s status and version of a package inside, or `unknown`. */
  packageState(name: string): string {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own field syntax
    const run = this.run(["dpkg-query", "-W", "--showformat", "${Status} ${Version}", name]);
    return run.status === 0 ? run.stdout.trim() : "unknown";
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
