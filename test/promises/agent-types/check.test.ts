/**
 * `tend check` on the attributes of services, databases and
 * guest_environments promises and their bodies: each case is rejected (or
 * accepted) as cf-promises 3.21 -c does, with the diagnostic code tend
 * gives; the last test asks the installed cf-promises.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseText } from "../../../src/language/parser.js";
import { SourceFile } from "../../../src/language/source.js";
import { validatePolicy } from "../../../src/language/validate/index.js";

interface Case {
  readonly name: string;
  readonly policy: string;
  /** The error code tend gives, or null for a valid policy. */
  readonly code: string | null;
}

const main = (body: string, extra = "") => `bundle agent main\n{\n${body}\n}\n${extra}`;
const method = (attrs: string) =>
  main('services:\n  "a" service_method => m;', `body service_method m\n{\n${attrs}\n}\n`);
const server = (attrs: string) =>
  main(
    'databases:\n  "d" database_server => s, database_type => "sql";',
    `body database_server s\n{\n${attrs}\n}\n`,
  );

const CASES: readonly Case[] = [
  {
    name: "services: any policy string",
    policy: main('services:\n  "a" service_policy => "try-restart";'),
    code: null,
  },
  {
    name: "services: unknown attribute",
    policy: main('services:\n  "a" service_bogus => "x";'),
    code: "unknown-attribute",
  },
  {
    name: "services: dependency not an identifier",
    policy: main('services:\n  "a" service_dependencies => { "b c" };'),
    code: "out-of-range",
  },
  {
    name: "services: policy is not a list",
    policy: main('services:\n  "a" service_policy => { "start" };'),
    code: "type-mismatch",
  },
  {
    name: "service_method: valid body",
    policy: method('  service_type => "generic";\n  service_bundle => x("a");'),
    code: null,
  },
  {
    name: "service_method: bad autostart",
    policy: method('  service_autostart_policy => "sometimes";'),
    code: "invalid-option",
  },
  {
    name: "service_method: bad type",
    policy: method('  service_type => "systemd";'),
    code: "invalid-option",
  },
  {
    name: "service_method: bad chain",
    policy: method('  service_dependence_chain => "x";'),
    code: "invalid-option",
  },
  {
    name: "service_method: args not a list",
    policy: method('  service_args => { "a" };'),
    code: "type-mismatch",
  },
  {
    name: "databases: valid table promise",
    policy: main(
      'databases:\n  "d.t" database_operation => "create", database_type => "sql", database_columns => { "a,int" };',
    ),
    code: null,
  },
  {
    name: "databases: bad operation",
    policy: main('databases:\n  "d" database_operation => "truncate";'),
    code: "invalid-option",
  },
  {
    name: "databases: bad type",
    policy: main('databases:\n  "d" database_type => "nosql";'),
    code: "invalid-option",
  },
  {
    name: "databases: rows not a list",
    policy: main('databases:\n  "d.t" database_rows => "a,b";'),
    code: "type-mismatch",
  },
  {
    name: "database_server: valid",
    policy: server('  db_server_type => "postgres";\n  db_server_host => "localhost";'),
    code: null,
  },
  {
    name: "database_server: bad server type",
    policy: server('  db_server_type => "oracle";'),
    code: "invalid-option",
  },
  {
    name: "database_server: unknown attribute",
    policy: server('  db_port => "5432";'),
    code: "unknown-attribute",
  },
  {
    name: "guest_environments: valid",
    policy: main(
      'guest_environments:\n  "vm" environment_type => "kvm", environment_state => "running", environment_host => "h1";',
    ),
    code: null,
  },
  {
    name: "guest_environments: bad state",
    policy: main('guest_environments:\n  "vm" environment_state => "paused";'),
    code: "invalid-option",
  },
  {
    name: "guest_environments: bad type",
    policy: main('guest_environments:\n  "vm" environment_type => "lxc";'),
    code: "invalid-option",
  },
  {
    name: "guest_environments: bad host",
    policy: main('guest_environments:\n  "vm" environment_host => "a-b";'),
    code: "out-of-range",
  },
  {
    name: "environment_resources: cpus not an int",
    policy: main(
      'guest_environments:\n  "vm" environment_resources => r;',
      'body environment_resources r\n{\n  env_cpus => "two";\n}\n',
    ),
    code: "type-mismatch",
  },
];

function errorCodes(text: string): string[] {
  const { policy, diagnostics } = parseText(text, "t.cf");
  const set = { files: [{ source: new SourceFile("t.cf", text), policy }] };
  return [...diagnostics, ...validatePolicy(set, { fullCheck: true })]
    .filter((d) => d.severity === "error")
    .map((d) => d.code);
}

for (const c of CASES) {
  test(`check ${c.name}`, () => {
    const codes = errorCodes(c.policy);
    if (c.code === null) assert.deepEqual(codes, []);
    else assert.ok(codes.includes(c.code), `expected ${c.code}, got ${codes.join(", ")}`);
  });
}

test("cf-promises rejects exactly the cases tend rejects", (t) => {
  if (spawnSync("cf-promises", ["--version"]).error) {
    t.skip("cf-promises not installed");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "tend-agent-types-check-"));
  try {
    for (const c of CASES) {
      writeFileSync(join(dir, "t.cf"), c.policy);
      const run = spawnSync("cf-promises", ["-c", "-f", "./t.cf"], { cwd: dir, encoding: "utf8" });
      assert.equal(
        run.status !== 0,
        c.code !== null,
        `${c.name}: cf-promises said ${run.stdout}${run.stderr}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
