/**
 * The Masterfiles Policy Framework as Debian's cfengine3 installs it
 * (`/var/lib/cfengine3/masterfiles`, or `TEND_MPF_MASTERFILES`): update.cf
 * then promises.cf, with `-K -I`, under cf-agent 3.21 and under tend, each
 * in its own scratch work directory (`-w`, so the programs are those of
 * `<workdir>/bin`), and the outcomes compared: exit codes,
 * error lines (tend prints none cf-agent does not), the classes defined at
 * the end, the files made in the work directory, and the python symlink
 * the update policy makes for package modules.
 *
 * The MPF changes the system (it links a python into `$(sys.bindir)`,
 * starts cf-serverd, cf-monitord and cf-execd, may write `/var/log`), so each
 * agent runs in a sandbox this test builds and nothing outside it changes:
 * - a private mount namespace where `/etc`, `/usr`, `/root`, `/home`,
 *   `/var` and `/opt` are overlays whose writes land in the scratch
 *   directory (the real directories are only read), and the scratch work
 *   directory is bound over `/var/lib/cfengine3`;
 * - a private PID namespace, so the daemons the MPF starts end with it.
 * `TEND_MPF_KEEP=1` keeps the scratch directory (its path is in the temporary directory).
 * Skipped (with the reason) when not root, without `unshare` or overlay
 * mounts, without cf-agent, or without the masterfiles.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const tendBin = process.env.TEND_BIN ?? join(repoRoot, "bin", "tend.js");
const masterfiles = process.env.TEND_MPF_MASTERFILES ?? "/var/lib/cfengine3/masterfiles";
const CF_AGENT = "/usr/bin/cf-agent";
/** The directories the sandbox overlays: the MPF writes only in them (and the work directory). */
const OVERLAID = ["etc", "usr", "root", "home", "var", "opt"];
const RUN_TIMEOUT_MS = 240_000;

type Engine = "cf-agent" | "tend";

interface PolicyRun {
  readonly code: number;
  readonly errors: string[];
  readonly classes: string[];
}

interface EngineRun {
  readonly update: PolicyRun;
  readonly promises: PolicyRun;
  /** The work directory's files, outside inputs, masterfiles and the agents' own state databases. */
  readonly files: string[];
  /** Where `$(sys.bindir)/cfengine-selected-python` points, if the run made it. */
  readonly pythonLink: string | undefined;
}

/**
 * The shell run in the namespaces: the overlays (their layers in the
 * scratch directory, moved under a private /tmp when the scratch directory
 * is itself under an overlaid directory), the work directory bound over
 * /var/lib/cfengine3, then both policies. Arguments: scratch, move, argv...
 */
const SANDBOX_SCRIPT = `set -e
R=$1; MOVE=$2; shift 2
if [ "$MOVE" = 1 ]; then
  mount -t tmpfs tmpfs /tmp; mkdir /tmp/r; mount --bind "$R" /tmp/r; R=/tmp/r
fi
for d in ${OVERLAID.join(" ")}; do
  mkdir -p "$R/ovl/$d/up" "$R/ovl/$d/work"
  mount -t overlay overlay -o "lowerdir=/$d,upperdir=$R/ovl/$d/up,workdir=$R/ovl/$d/work" "/$d"
done
mount --bind "$R/wd" /var/lib/cfengine3
set +e
for p in update promises; do
  "$@" -f $p.cf > "$R/$p.out" 2>&1; echo $? > "$R/$p.rc"
done
exit 0`;

function whyNotRunnable(): string | undefined {
  if (process.getuid?.() !== 0) return "needs root for the mount and PID namespaces";
  if (!existsSync(join(masterfiles, "promises.cf")) || !existsSync(join(masterfiles, "update.cf")))
    return `no masterfiles at ${masterfiles} (install Debian's cfengine3 or set TEND_MPF_MASTERFILES)`;
  if (!existsSync(CF_AGENT)) return "cf-agent 3.21 is not installed (the reference)";
  if (spawnSync("unshare", ["--version"]).status !== 0) return "unshare (util-linux) is absent";
  return undefined;
}

/** Whether the scratch directory lies under a directory the sandbox overlays. */
function underOverlay(dir: string): boolean {
  return OVERLAID.some((d) => dir === `/${d}` || dir.startsWith(`/${d}/`));
}

function prepare(root: string): void {
  const wd = join(root, "wd");
  for (const sub of ["inputs", "masterfiles", "state", "modules", "outputs", "plugins", "bin"])
    mkdirSync(join(wd, sub), { recursive: true });
  // With -w, both agents take their programs from <workdir>/bin (sys.bindir).
  for (const program of readdirSync("/usr/bin").filter((p) => p.startsWith("cf-")))
    symlinkSync(join("/usr/bin", program), join(wd, "bin", program));
  cpSync(masterfiles, join(wd, "inputs"), { recursive: true });
  cpSync(masterfiles, join(wd, "masterfiles"), { recursive: true });
}

function argv(engine: Engine): string[] {
  const options = ["-w", "/var/lib/cfengine3", "-K", "-I", "--show-evaluated-classes"];
  if (engine === "cf-agent") return [CF_AGENT, ...options];
  return [process.execPath, tendBin, "agent", ...options];
}

function runSandboxed(engine: Engine, root: string): string | undefined {
  prepare(root);
  const move = underOverlay(root) ? "1" : "0";
  const run = spawnSync(
    "unshare",
    ["-m", "-p", "-f", "--mount-proc", "sh", "-c", SANDBOX_SCRIPT, "sandbox", root, move, ...argv(engine)],
    { encoding: "utf8", timeout: RUN_TIMEOUT_MS },
  );
  if (run.status !== 0) return `the sandbox could not be built: ${run.stderr || run.error?.message}`;
  return undefined;
}

/** Error lines (the log's, not a command's quoted output) and the classes of the final table. */
function readPolicyRun(root: string, policy: string): PolicyRun {
  const text = readFileSync(join(root, `${policy}.out`), "utf8");
  const lines = text.split("\n");
  const table = lines.findIndex((l) => l.startsWith("Class name"));
  const classes = (table < 0 ? [] : lines.slice(table + 1))
    // Time classes change between the runs; cf-monitord's (from env_data) come when it has written.
    .filter((l) => l.trim() !== "" && !/\b(time_based|monitoring)\b/.test(l))
    .map((l) => l.split(/\s+/)[0]);
  const errors = lines.filter((l) => /^\s*error: /.test(l)).map((l) => l.trim());
  const code = Number(readFileSync(join(root, `${policy}.rc`), "utf8").trim());
  return { code, errors, classes: [...new Set(classes)].sort() };
}

function listFiles(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const rel = relative(base, path);
    if (["inputs", "masterfiles"].includes(rel)) continue;
    // Each agent keeps its own state databases (lmdb for cf-agent, JSON for tend).
    if (rel.startsWith("state/") && !entry.isDirectory()) continue;
    // cf-agent's own logs in sys.logdir (the work directory under -w): tend writes neither yet.
    if (rel === "promise_summary.log" || /^cfagent\..*\.log$/.test(rel)) continue;
    // The output of a run cf-execd (started by update.cf) makes if its schedule comes up meanwhile.
    if (rel.startsWith("outputs/") && !entry.isDirectory()) continue;
    out.push(entry.isDirectory() ? `${rel}/` : rel);
    if (entry.isDirectory()) out.push(...listFiles(path, base));
  }
  return out.sort();
}

function readEngineRun(root: string): EngineRun {
  const link = join(root, "wd", "bin", "cfengine-selected-python");
  let pythonLink: string | undefined;
  try {
    pythonLink = readlinkSync(link);
  } catch {
    pythonLink = undefined;
  }
  return {
    update: readPolicyRun(root, "update"),
    promises: readPolicyRun(root, "promises"),
    files: listFiles(join(root, "wd")),
    pythonLink,
  };
}

test("the MPF's update.cf and promises.cf end under tend as under cf-agent", { timeout: 600_000 }, (t) => {
  const reason = whyNotRunnable();
  if (reason) {
    t.skip(reason);
    return;
  }
  const scratch = mkdtempSync(join(tmpdir(), "tend-mpf-"));
  try {
    const runs = new Map<Engine, EngineRun>();
    for (const engine of ["cf-agent", "tend"] as const) {
      const root = join(scratch, engine);
      mkdirSync(root);
      const failure = runSandboxed(engine, root);
      if (failure) {
        t.skip(failure);
        return;
      }
      runs.set(engine, readEngineRun(root));
    }
    const cf = runs.get("cf-agent") as EngineRun;
    const tend = runs.get("tend") as EngineRun;
    for (const policy of ["update", "promises"] as const) {
      assert.equal(tend[policy].code, cf[policy].code, `${policy}.cf exit code`);
      const extra = tend[policy].errors.filter((e) => !cf[policy].errors.includes(e));
      assert.deepEqual(extra, [], `${policy}.cf: errors tend prints and cf-agent does not`);
      assert.deepEqual(tend[policy].classes, cf[policy].classes, `${policy}.cf: classes at the end`);
    }
    assert.deepEqual(tend.files, cf.files, "files in the work directory");
    assert.equal(tend.pythonLink, cf.pythonLink, "the python symlink for package modules");
    assert.ok(tend.files.includes("modules/packages/apt_get"), "the package modules are rendered");
  } finally {
    if (process.env.TEND_MPF_KEEP !== "1") rmSync(scratch, { recursive: true, force: true });
  }
});
