/**
 * Automatic class parameter lookup and lookup() inside a compile, through
 * the command line's compile path (settings, environment, Hiera, functions),
 * against the catalogs Puppet 7.23 compiled for the same code and data
 * (test/fixtures/puppet-hiera/catalogs, made with compile_many.rb).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { compileNodeCatalog } from "../../../src/puppet/env/compile.js";
import { resolveCompileSettings } from "../../../src/puppet/settings.js";
import { fixtureDir } from "./oracle.js";

interface Resource {
  type: string;
  title: string;
  parameters?: Record<string, unknown>;
}

function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), "tend-hiera-"));
  mkdirSync(join(root, "etc"));
  writeFileSync(
    join(root, "etc/puppet.conf"),
    `[main]\nvardir = ${root}/var\ncodedir = ${fixtureDir}/code\nhiera_config = ${fixtureDir}/global/hiera.yaml\nbasemodulepath = ${root}/none\n`,
  );
  const recorded = JSON.parse(readFileSync(join(fixtureDir, "expected.json"), "utf8")) as {
    id: string;
    scope: unknown;
  }[];
  mkdirSync(join(root, "var/server_data/facts"), { recursive: true });
  for (const [id, node] of [
    ["prod-node1", "node1.example.com"],
    ["prod-web01", "web01.example.com"],
  ] as const) {
    const scope = recorded.find((r) => r.id === id)?.scope as { h: [unknown, unknown][] };
    const facts = scope.h.find(([k]) => k === "facts")?.[1];
    writeFileSync(
      join(root, "var/server_data/facts", `${node}.json`),
      JSON.stringify({ name: node, values: plain(facts) }),
    );
  }
  return root;
}

/** record.rb's typed encoding back to plain JSON. */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v === null || typeof v !== "object") return v;
  const o = v as { i?: string; f?: number; h?: [unknown, unknown][] };
  if (o.i !== undefined) return Number(o.i);
  if (o.f !== undefined) return o.f;
  return Object.fromEntries((o.h ?? []).map(([k, x]) => [String(k), plain(x)]));
}

function pick(resources: readonly Resource[]): Resource[] {
  return resources
    .filter((r) => r.type === "Notify" || (r.type === "Class" && r.title !== "Settings"))
    .map((r) => ({ type: r.type, title: r.title, parameters: r.parameters }));
}

const root = scratch();
test.after(() => rmSync(root, { recursive: true, force: true }));

for (const node of ["node1.example.com", "web01.example.com"]) {
  test(`${node}: class parameters and lookup() as Puppet compiled them`, async () => {
    const settings = resolveCompileSettings(
      { confdir: join(root, "etc"), environment: "production", facts_terminus: "json" },
      root,
    );
    const compiled = await compileNodeCatalog({ node, settings, factsDir: join(root, "var/server_data") });
    const puppet = JSON.parse(readFileSync(join(fixtureDir, "catalogs", `${node}.json`), "utf8")) as {
      resources: Resource[];
    };
    const ours = compiled.result.catalog.resources as unknown as Resource[];
    assert.deepEqual(pick(ours), pick(puppet.resources));
  });
}
