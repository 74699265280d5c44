/**
 * A sandbox for Puppet's `mount` with real mounts: a private mount
 * namespace (`unshare -m --propagation private`) in which the scratch
 * directory is bound at /mnt (so paths in catalogs are fixed), a tmpfs
 * "arena" at /mnt/arena holds the mount points, and a copy of /etc is bound
 * over /etc (the whole directory: tend replaces fstab by a rename, which a
 * bind of the single file refuses). The scenario's `setup` (sh) mounts what
 * should be mounted before the first run; then the apply command runs once
 * per run, all in the same namespace, and after each the mounts under the
 * arena, /etc/fstab and the run's report are kept. The machine's /etc/fstab
 * and mounts never change: the namespace's mounts vanish with it.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixedFacts, NODE } from "../harness.js";

export { NODE };

/** test/fixtures/puppet-mounts/ in the source tree. */
export const scenariosDir = fileURLToPath(
  new URL("../../../../test/fixtures/puppet-mounts/", import.meta.url),
);

/** Where the scratch directory is seen from inside the namespace. */
export const INSIDE = "/mnt";
/** The scratch Puppet configuration's confdir, inside. */
export const CONFDIR = `${INSIDE}/puppet/etc`;
/** The report each run writes, inside (Puppet's `$statedir/last_run_report.yaml`). */
export const REPORT = `${INSIDE}/puppet/var/state/last_run_report.yaml`;

export interface MountScenarioSpec {
  readonly description?: string;
  /** The sandbox's /etc/fstab before the first run. */
  readonly fstab: string;
  /** sh run in the namespace before the first run (mkdir, mount). */
  readonly setup: string;
  readonly runs: readonly { readonly noop?: boolean }[];
}

export interface MountScenario extends MountScenarioSpec {
  readonly name: string;
  readonly dir: string;
}

export function listMountScenarios(): MountScenario[] {
  if (!existsSync(scenariosDir)) return [];
  return ["mounted"]
    .filter((name) => existsSync(join(scenariosDir, name, "scenario.json")))
    .map((name) => {
      const dir = join(scenariosDir, name);
      const spec = JSON.parse(readFileSync(join(dir, "scenario.json"), "utf8")) as MountScenarioSpec;
      return { ...spec, name, dir };
    });
}

/** What one run left. */
export interface SandboxRunResult {
  readonly exitCode: number;
  /** What the command printed (stdout then stderr). */
  readonly output: string;
  /** The run's report YAML, when one was written. */
  readonly reportFile?: string;
  /** /proc/self/mounts lines of the arena's mounts (not the arena itself). */
  readonly mounts: readonly string[];
  /** /etc/fstab after the run, its header's write time left out. */
  readonly fstab: string;
}

export interface SandboxSession {
  /** The scratch directory, outside (removed by `remove`). */
  readonly dir: string;
  readonly runs: readonly SandboxRunResult[];
  remove(): void;
}

/** Why the sandbox cannot be built here, or undefined when it can. */
export function mountSandboxUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return "the mount sandbox needs root (mount namespaces, tmpfs)";
  if (spawnSync("unshare", ["--version"]).status !== 0) return "unshare is not installed";
  const probe = spawnSync(
    "unshare",
    ["-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs tend-probe /mnt && umount /mnt"],
    { encoding: "utf8" },
  );
  if (probe.error || probe.status !== 0)
    return `cannot mount in a private mount namespace: ${(probe.stderr ?? "").trim()}`;
  return undefined;
}

function quote(arg: string): string {
  return `'${arg.split("'").join(`'\\''`)}'`;
}

/**
 * Builds a sandbox, writes `files` (path inside the scratch directory →
 * text), runs `setup` then each command of `commands` in one namespace,
 * and returns what each run left. The caller removes the session.
 */
export function runInMountSandbox(
  spec: Pick<MountScenarioSpec, "fstab" | "setup">,
  files: Readonly<Record<string, string>>,
  commands: readonly (readonly string[])[],
  env: Readonly<Record<string, string>> = {},
): SandboxSession {
  const dir = mkdtempSync(join(tmpdir(), "tend-mounts-"));
  const remove = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    for (const sub of ["arena", "out"]) mkdirSync(join(dir, sub));
    cpSync("/etc", join(dir, "etc"), { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(dir, "etc", "fstab"), spec.fstab);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const lines = [
      "set -u",
      `mount --bind ${quote(dir)} ${INSIDE} || exit 90`,
      `mount -t tmpfs -o size=4m,mode=755 tend-arena ${INSIDE}/arena || exit 91`,
      `mount --bind ${INSIDE}/etc /etc || exit 92`,
      `cd ${INSIDE} || exit 93`,
      `( ${spec.setup} ) > ${INSIDE}/out/setup.log 2>&1 || { cat ${INSIDE}/out/setup.log; exit 94; }`,
    ];
    commands.forEach((command, index) => {
      const i = index + 1;
      lines.push(
        `rm -f ${REPORT}`,
        `${command.map(quote).join(" ")} > ${INSIDE}/out/log.${i} 2>&1`,
        `echo $? > ${INSIDE}/out/rc.${i}`,
        `grep ' ${INSIDE}/arena/' /proc/self/mounts > ${INSIDE}/out/mounts.${i}`,
        `cp /etc/fstab ${INSIDE}/out/fstab.${i}`,
        `[ -f ${REPORT} ] && cp ${REPORT} ${INSIDE}/out/report.${i}.yaml`,
      );
    });
    lines.push(`umount -R ${INSIDE}/arena`, "exit 0", "");
    writeFileSync(join(dir, "sandbox.sh"), lines.join("\n"));
    const run = spawnSync("unshare", ["-m", "--propagation", "private", "sh", join(dir, "sandbox.sh")], {
      encoding: "utf8",
      env: { ...process.env, LC_ALL: "C", ...env },
    });
    if (run.status !== 0) throw new Error(`mount sandbox failed (${run.status}): ${run.stdout}${run.stderr}`);
    const runs = commands.map((_, index): SandboxRunResult => {
      const out = (name: string): string => readFileSync(join(dir, "out", name), "utf8");
      const report = join(dir, "out", `report.${index + 1}.yaml`);
      return {
        exitCode: Number(out(`rc.${index + 1}`).trim()),
        output: out(`log.${index + 1}`),
        reportFile: existsSync(report) ? report : undefined,
        mounts: out(`mounts.${index + 1}`)
          .split("\n")
          .filter(Boolean),
        fstab: out(`fstab.${index + 1}`).replace(
          /^(# HEADER: This file was autogenerated at ).*$/m,
          "$1TIME",
        ),
      };
    });
    return { dir, runs, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** A scratch puppet.conf and fixed facts, for paths seen from inside the namespace. */
export function puppetConfFiles(): Record<string, string> {
  const conf = [
    "[main]",
    `vardir = ${INSIDE}/puppet/var`,
    `codedir = ${INSIDE}/puppet/code`,
    `logdir = ${INSIDE}/puppet/var/log`,
    `rundir = ${INSIDE}/puppet/var/run`,
    `publicdir = ${INSIDE}/puppet/var/public`,
    `ssldir = ${INSIDE}/puppet/etc/ssl`,
    `vendormoduledir = ${INSIDE}/puppet/vendor_modules`,
    "basemodulepath = $codedir/modules:/usr/share/puppet/modules",
    `cadir = ${INSIDE}/puppet/etc/ca`,
    "report = true",
    "reports = store",
    "",
  ].join("\n");
  const facts = JSON.stringify({
    name: NODE,
    values: fixedFacts(NODE),
    timestamp: "2024-01-01T00:00:00+00:00",
  });
  return {
    "puppet/etc/puppet.conf": conf,
    [`puppet/var/server_data/facts/${NODE}.json`]: facts,
    [`puppet/var/client_data/facts/${NODE}.json`]: facts,
  };
}
