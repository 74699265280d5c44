/**
 * copy_from from a real cf-serverd 3.21 (a scratch host in its own mount
 * namespace, on 127.0.0.1 at a free port): tend agent and cf-agent run
 * the same policy against the same server, each into its own directory
 * and with its own work directory, and must agree on the outcome classes
 * (reports), the log lines (paths made alike) and the files left.
 * Skipped with the reason without root or the cfengine3 tools.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  type Host,
  inNamespace,
  missingTools,
  type ServerKind,
  startHost,
  trustServer,
} from "./remote-host.js";

const TEND = fileURLToPath(new URL("../../../../bin/tend.js", import.meta.url));
const skip = missingTools();

const SERVERS: readonly ServerKind[] = ["cf-serverd", "tend serverd"];
const hosts = new Map<ServerKind, Host>();

before(async () => {
  if (skip) return;
  for (const kind of SERVERS) hosts.set(kind, await startHost(kind));
});
after(() => {
  for (const host of hosts.values()) host.stop();
});

interface Run {
  readonly lines: string[];
  readonly reports: string[];
  readonly status: number | null;
}

/** A time-stamped backup's stamp (as 3.21 writes it: no trailing underscore). */
const STAMP = /_\d{9,}_[A-Z][a-z]{2}_[A-Z][a-z]{2}_+\d+_\d\d_\d\d_\d\d_\d{4}(?=\.cfsaved)/g;

function digest(output: string, out: string, cli: string, file: string): Run {
  const lines = output
    .split("\n")
    .map((line) =>
      line
        .replaceAll(file, "POLICY")
        .replaceAll(out, "OUT")
        .replaceAll(cli, "CLI")
        .replace(STAMP, "_STAMP")
        .trimEnd(),
    )
    .filter((line) => line !== "");
  return {
    lines: lines.filter((l) => !l.startsWith("R: ")),
    reports: lines.filter((l) => l.startsWith("R: ")).sort(),
    status: 0,
  };
}

/** The policy of a scenario, writing under `out`. */
type Policy = (out: string, h: Host) => string;

function policyFile(dir: string, name: string, text: string): string {
  const file = join(dir, `${name}.cf`);
  writeFileSync(file, text);
  return file;
}

const runners = {
  tend(h: Host, cli: string, out: string, policy: Policy, name: string): Run {
    const file = policyFile(h.root, `${name}-tend`, policy(out, h));
    const run = spawnSync(process.execPath, [TEND, "agent", "-K", "-I", "-w", cli, "-f", file], {
      encoding: "utf8",
      timeout: 120_000,
    });
    return { ...digest(run.stdout + run.stderr, out, cli, file), status: run.status };
  },
  cf(h: Host, cli: string, out: string, policy: Policy, name: string): Run {
    const file = policyFile(h.root, `${name}-cf`, policy(out, h));
    const run = inNamespace(cli, ["cf-agent", "-K", "-I", "-f", file], 120_000);
    return { ...digest(run.stdout + run.stderr, out, "/var/lib/cfengine3", file), status: run.status };
  },
};

/** The files under `dir`: path → type, mode and content or link text. */
function tree(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  if (!existsSync(dir)) return found;
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const key = `${rel}${name}`.replace(STAMP, "_STAMP");
      const stats = lstatSync(full);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) found[key] = `link ${readlinkSync(full)}`;
      else if (stats.isDirectory()) {
        found[key] = `dir ${mode}`;
        walk(full, `${key}/`);
      } else found[key] = `file ${mode} ${readFileSync(full, "utf8")}`;
    }
  };
  walk(dir, "");
  return found;
}

interface Pair {
  readonly tend: Run;
  readonly cf: Run;
  readonly tendOut: string;
  readonly cfOut: string;
}

/** Client work directories for one scenario: tend's and cf-agent's, with the same key pair. */
function clients(h: Host, name: string, trusted: boolean): { tendCli: string; cfCli: string } {
  const cfCli = join(h.root, `cf-${name}`);
  const tendCli = join(h.root, `tend-${name}`);
  for (const dir of [cfCli, tendCli]) {
    mkdirSync(dir, { recursive: true });
    for (const sub of ["inputs", "outputs", "state"]) mkdirSync(join(dir, sub), { recursive: true });
    cpSync(join(h.clientDir, "ppkeys"), join(dir, "ppkeys"), { recursive: true });
    if (trusted) trustServer(h, dir);
  }
  return { tendCli, cfCli };
}

function both(h: Host, name: string, policy: Policy, trusted = true): (again?: boolean) => Pair {
  const { tendCli, cfCli } = clients(h, name, trusted);
  const tendOut = join(h.root, `out-tend-${name}`);
  const cfOut = join(h.root, `out-cf-${name}`);
  return () => ({
    cf: runners.cf(h, cfCli, cfOut, policy, name),
    tend: runners.tend(h, tendCli, tendOut, policy, name),
    tendOut,
    cfOut,
  });
}

function assertAlike(pair: Pair, what: string): void {
  assert.deepEqual(pair.tend.reports, pair.cf.reports, `${what}: reports`);
  assert.deepEqual(pair.tend.lines, pair.cf.lines, `${what}: log lines`);
  assert.deepEqual(tree(pair.tendOut), tree(pair.cfOut), `${what}: files`);
  assert.equal(pair.tend.status, pair.cf.status, `${what}: exit status`);
}

const CLASSES = `
body classes c(p) {
  promise_kept => { "$(p)_kept" };
  promise_repaired => { "$(p)_repaired" };
  repair_failed => { "$(p)_failed" };
  repair_denied => { "$(p)_denied" };
  repair_timeout => { "$(p)_timeout" };
}
bundle agent report(p) {
  reports:
    "$(p) $(with)" with => join(",", classesmatching("$(p)_.*"));
}
body depth_search inf { depth => "inf"; }
`;

function copyBody(name: string, extra: string, servers: string): string {
  return `body copy_from ${name}(f) {
  source => "$(f)";
  servers => { ${servers} };
  ${extra}
}`;
}

function server(_h: Host): string {
  return `"127.0.0.1"`;
}

for (const kind of SERVERS) {
  test(`${kind}: a file, a tree with purge and a denied path, twice: as cf-agent`, { skip }, () => {
    const h = hosts.get(kind)!;
    mkdirSync(join(h.data, "tree/sub"), { recursive: true });
    writeFileSync(join(h.data, "hello.txt"), "hello\n");
    writeFileSync(join(h.data, "tree/a"), "a\n");
    writeFileSync(join(h.data, "tree/sub/b"), "b\n");
    writeFileSync(join(h.data, "secret.txt"), "secret\n");
    const policy: Policy = (out) => `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${out}/hello.txt" copy_from => r("${h.data}/hello.txt"), classes => c("hello");
    "${out}/tree" copy_from => r("${h.data}/tree"), depth_search => inf, classes => c("tree");
    "${out}/secret.txt" copy_from => r("${h.data}/secret.txt"), classes => c("secret");
  methods:
    "" usebundle => report("hello");
    "" usebundle => report("tree");
    "" usebundle => report("secret");
}
${copyBody("r", `portnumber => "${h.port}"; compare => "digest"; purge => "true";`, server(h))}
${CLASSES}`;
    const run = both(h, "basic", policy);
    const first = run();
    assertAlike(first, "first run");
    assert.ok(first.tend.reports.some((r) => r.startsWith("R: hello ") && r.includes("hello_repaired")));
    const second = run();
    assertAlike(second, "second run");
    assert.ok(second.tend.reports.includes("R: hello hello_kept"), second.tend.reports.join("\n"));
    // A changed source, and a file the source does not have: copied again, purged.
    writeFileSync(join(h.data, "tree/a"), "a changed\n");
    writeFileSync(join(second.tendOut, "tree/extra"), "x");
    writeFileSync(join(second.cfOut, "tree/extra"), "x");
    const third = run();
    assertAlike(third, "third run");
    assert.equal(readFileSync(join(third.tendOut, "tree/a"), "utf8"), "a changed\n");
    assert.equal(existsSync(join(third.tendOut, "tree/extra")), false);
  });

  test(`${kind}: mtime compare, missing_ok, and an unchanged file kept without a copy`, { skip }, () => {
    const h = hosts.get(kind)!;
    writeFileSync(join(h.data, "m.txt"), "m\n");
    utimesSync(join(h.data, "m.txt"), 1_000_000_000, 1_000_000_000);
    const policy: Policy = (out) => `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${out}/m.txt" copy_from => m("${h.data}/m.txt"), classes => c("m");
    "${out}/gone.txt" copy_from => missing("${h.data}/gone.txt"), classes => c("gone");
  methods:
    "" usebundle => report("m");
    "" usebundle => report("gone");
}
${copyBody("m", `portnumber => "${h.port}"; compare => "mtime"; preserve => "true";`, server(h))}
${copyBody("missing", `portnumber => "${h.port}"; missing_ok => "true";`, server(h))}
${CLASSES}`;
    const run = both(h, "mtime", policy);
    const first = run();
    assertAlike(first, "first run");
    const inode = statSync(join(first.tendOut, "m.txt")).ino;
    const second = run();
    assertAlike(second, "second run");
    assert.equal(statSync(join(second.tendOut, "m.txt")).ino, inode, "not copied again");
    assert.ok(second.tend.reports.includes("R: m m_kept"), second.tend.reports.join("\n"));
  });

  test(`${kind}: an untrusted server key: refused without trustkey, trusted with it`, { skip }, () => {
    const h = hosts.get(kind)!;
    writeFileSync(join(h.data, "t.txt"), "t\n");
    const policy =
      (trust: string): Policy =>
      (out) =>
        `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${out}/t.txt" copy_from => t("${h.data}/t.txt"), classes => c("t");
  methods:
    "" usebundle => report("t");
}
${copyBody("t", `portnumber => "${h.port}"; trustkey => "${trust}";`, server(h))}
${CLASSES}`;
    const refused = both(h, "untrusted", policy("false"), false)();
    assertAlike(refused, "without trustkey");
    assert.ok(refused.tend.reports.includes("R: t t_failed"), refused.tend.reports.join("\n"));
    const trusted = both(h, "untrusted", policy("true"), false)();
    assertAlike(trusted, "with trustkey");
    assert.ok(
      existsSync(join(h.root, "tend-untrusted", "ppkeys", `root-${h.serverDigest}.pub`)),
      "the key is saved",
    );
  });

  test(`${kind}: failover from a dead server to a live one; copyfrom_restrict_keys`, { skip }, () => {
    const h = hosts.get(kind)!;
    writeFileSync(join(h.data, "f.txt"), "f\n");
    const policy =
      (keys: string): Policy =>
      (out) =>
        `body common control { bundlesequence => { "main" }; }
body agent control { copyfrom_restrict_keys => { ${keys} }; }
bundle agent main {
  files:
    "${out}/f.txt" copy_from => f("${h.data}/f.txt"), classes => c("f");
  methods:
    "" usebundle => report("f");
}
${copyBody("f", `portnumber => "${h.port}";`, `"127.0.0.2", "127.0.0.1"`)}
${CLASSES}`;
    const failover = both(h, "failover", policy(`"${h.serverDigest}"`))();
    assertAlike(failover, "failover");
    assert.ok(failover.tend.reports.includes("R: f f_kept,f_repaired"), failover.tend.reports.join("\n"));
    const pinned = both(h, "pinned", policy(`"MD5=00000000000000000000000000000000"`))();
    assertAlike(pinned, "restricted keys");
    assert.ok(pinned.tend.reports.includes("R: f f_failed"), pinned.tend.reports.join("\n"));
  });

  test(`${kind}: links, preserve, backups, verify, type_check and a large file: as cf-agent`, {
    skip,
  }, () => {
    const h = hosts.get(kind)!;
    const d = join(h.data, "mix");
    mkdirSync(join(d, "dir"), { recursive: true });
    writeFileSync(join(d, "plain"), "plain\n", { mode: 0o640 });
    writeFileSync(join(d, "script"), "#!/bin/sh\n", { mode: 0o755 });
    writeFileSync(join(d, "dir/inner"), "inner\n");
    symlinkSync("plain", join(d, "rel-link"));
    symlinkSync(join(d, "plain"), join(d, "abs-link"));
    symlinkSync("dir/inner", join(d, "copied-link"));
    symlinkSync("nowhere", join(d, "dangling"));
    const big = Buffer.alloc(3 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i += 4096) big.write(`block ${i}\n`, i);
    writeFileSync(join(d, "big"), big);
    const policy =
      (extra: string): Policy =>
      (out) =>
        `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${out}/mix" copy_from => x("${d}"), depth_search => inf, classes => c("mix");
    "${out}/one" copy_from => x("${d}/plain"), classes => c("one");
  methods:
    "" usebundle => report("mix");
    "" usebundle => report("one");
}
${copyBody("x", `portnumber => "${h.port}"; ${extra}`, server(h))}
${CLASSES}`;
    const variants: [string, string][] = [
      [
        "preserve",
        `preserve => "true"; compare => "hash"; copylink_patterns => { "copied-link" }; verify => "true";`,
      ],
      ["absolute", `link_type => "absolute"; compare => "ctime"; copy_backup => "timestamp";`],
      ["binary", `compare => "binary"; copy_backup => "false"; type_check => "false";`],
      ["exists", `compare => "exists"; encrypt => "true"; protocol_version => "2";`],
    ];
    for (const [name, extra] of variants) {
      const run = both(h, name, policy(extra));
      assertAlike(run(), `${name}: first run`);
      writeFileSync(join(d, "plain"), `plain ${name}\n`, { mode: 0o640 });
      // Newer than any copy made in the same second, for the time comparisons.
      const later = Date.now() / 1000 + 100;
      utimesSync(join(d, "plain"), later, later);
      assertAlike(run(), `${name}: second run`);
    }
  });

  test(`${kind}: protocol_version classic without allowlegacyconnects fails; the run goes on`, {
    skip,
  }, () => {
    const h = hosts.get(kind)!;
    writeFileSync(join(h.data, "c.txt"), "c\n");
    const { tendCli } = clients(h, "classic", true);
    const out = join(h.root, "out-classic");
    const policy = `body common control { bundlesequence => { "main" }; }
bundle agent main {
  files:
    "${out}/c.txt" copy_from => c("${h.data}/c.txt"), classes => c("c");
  methods:
    "" usebundle => report("c");
}
${copyBody("c", `portnumber => "${h.port}"; protocol_version => "classic";`, server(h))}
${CLASSES}`;
    const run = runners.tend(h, tendCli, out, () => policy, "classic");
    assert.ok(run.reports.includes("R: c c_failed"), run.reports.join("\n"));
    // The server closes a classic connection from a host not in allowlegacyconnects.
    assert.ok(
      run.lines.some((l) => /Protocol transaction broken off|Unable to establish connection/.test(l)),
      run.lines.join("\n"),
    );
  });
}
