/**
 * Benchmarks Rudder policy generation: 1,000 nodes, each getting 50
 * directives, generated and written to disk, as `tend rudder generate`
 * does for one node:
 *
 *   node dist/bench/rudder.js [--nodes 1000] [--directives 50] [--json]
 *
 * The configuration: 10 techniques (4 unique, 3 multi-instance merged,
 * 3 multi-instance separated-with-parameters, each with a multivalued
 * component section), 50 directives spread over them with priorities 0-10,
 * 10 rules of 5 directives each targeting dynamic groups (a regex on the
 * hostname, a node property) and special:all, and the nodes. The time is
 * loading the directory once, then for every node: drafts, merge and
 * order, bundle sequence, expected reports, and writing its policy
 * directory (temp directory + rename). There is no reference tool to run
 * beside it (Rudder's generation needs its webapp): the goal from issue 18
 * is printed next to the measure.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadConfiguration } from "../src/rudder/config/load.js";
import { findTemplates, generateNode } from "../src/rudder/generate/index.js";
import type { SourceCache } from "../src/rudder/generate/technique-files.js";
import { writePolicyDirectory } from "../src/rudder/generate/write.js";

const GOAL_MS = 10_000;

function option(name: string, dflt: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at < 0 ? dflt : Number(process.argv[at + 1]);
}

function write(dir: string, path: string, content: unknown): void {
  const full = join(dir, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, typeof content === "string" ? content : JSON.stringify(content, null, 2));
}

function technique(i: number): { multi: boolean; mode: string } {
  if (i < 4) return { multi: false, mode: "merged" };
  return { multi: true, mode: i < 7 ? "merged" : "separated-with-parameters" };
}

function makeConfig(dir: string, nodes: number, directives: number): void {
  for (let i = 0; i < 10; i++) {
    const { multi, mode } = technique(i);
    write(
      dir,
      `techniques/tech${i}/1.0/metadata.xml`,
      `<TECHNIQUE name="Technique ${i}">
  <MULTIINSTANCE>${multi}</MULTIINSTANCE>
  <POLICYGENERATION>${mode}</POLICYGENERATION>
  <BUNDLES><NAME>tech${i}</NAME></BUNDLES>
  <FILES><FILE name="tech${i}.cf"><INCLUDED>true</INCLUDED></FILE></FILES>
  <TRACKINGVARIABLE><SAMESIZEAS>PATH</SAMESIZEAS></TRACKINGVARIABLE>
  <SECTIONS>
    <SECTION name="Files" multivalued="true" component="true" componentKey="PATH">
      <INPUT><NAME>PATH</NAME><DESCRIPTION>path</DESCRIPTION></INPUT>
      <INPUT><NAME>OWNER</NAME><DESCRIPTION>owner</DESCRIPTION><CONSTRAINT><DEFAULT>root</DEFAULT></CONSTRAINT></INPUT>
    </SECTION>
    <SECTION name="Service" component="true" />
  </SECTIONS>
</TECHNIQUE>`,
    );
    write(
      dir,
      `techniques/tech${i}/1.0/tech${i}.cf`,
      `bundle agent tech${i}(path, owner) {\n  reports:\n    "\${path}";\n}\n`,
    );
  }
  for (let d = 0; d < directives; d++) {
    write(dir, `directives/d${d}.json`, {
      id: `d${d}`,
      displayName: `Directive ${String(d).padStart(2, "0")}`,
      techniqueName: `tech${d % 10}`,
      techniqueVersion: "1.0",
      priority: d % 11,
      // Merged techniques need one mode for all their directives (Rudder refuses a mix).
      policyMode: d % 3 === 0 && (d % 10 < 4 || d % 10 >= 7) ? "audit" : "default",
      parameters: { PATH: [`/tmp/${d}/a`, `\${node.properties[root]}/${d}/b`] },
    });
  }
  write(dir, "groups/web.json", {
    id: "web",
    query: {
      where: [
        {
          objectType: "node",
          attribute: "nodeHostname",
          comparator: "regex",
          value: "node[0-9]*[02468]\\..*",
        },
      ],
    },
  });
  write(dir, "groups/prod.json", {
    id: "prod",
    query: {
      where: [
        {
          objectType: "serializedNodeProperty",
          attribute: "name.value",
          comparator: "eq",
          value: "env=prod",
        },
      ],
    },
  });
  const targets = [["group:web", "group:prod"], ["special:all"]];
  for (let r = 0; r < Math.ceil(directives / 5); r++) {
    const ids = Array.from({ length: 5 }, (_, k) => `d${r * 5 + k}`).filter((_, k) => r * 5 + k < directives);
    // Every node gets every rule: half through the groups' union, half through special:all.
    write(dir, `rules/r${r}.json`, {
      id: `r${r}`,
      displayName: `Rule ${r}`,
      directives: ids,
      targets:
        r % 2 === 0 ? [{ include: { or: targets[0] }, exclude: { or: [] } }, "special:all"] : targets[1],
    });
  }
  for (let n = 0; n < nodes; n++) {
    write(dir, `nodes/node${n}.json`, {
      id: `node${n}`,
      hostname: `node${n}.example.com`,
      properties: [
        { name: "env", value: n % 3 === 0 ? "prod" : "dev" },
        { name: "root", value: `/srv/node${n}` },
      ],
    });
  }
}

function main(): void {
  const nodes = option("nodes", 1000);
  const directives = option("directives", 50);
  const dir = mkdtempSync(join(tmpdir(), "tend-bench-rudder-"));
  try {
    makeConfig(join(dir, "config"), nodes, directives);
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const { config, diagnostics } = loadConfiguration(join(dir, "config"));
    if (diagnostics.length > 0) throw new Error(diagnostics.map((d) => d.message).join("\n"));
    const loaded = performance.now();
    const templates = findTemplates(config);
    const fileCache: SourceCache = new Map();
    let policies = 0;
    for (const id of config.nodes.keys()) {
      const r = generateNode(config, id, { templates, fileCache });
      if (!r.ok) throw new Error(r.messages.map((m) => m.message).join("\n"));
      policies += r.policies.reduce((n, p) => n + p.vars.length, 0);
      writePolicyDirectory(join(dir, "out", id), r.files);
    }
    const done = performance.now();
    const cpu = process.cpuUsage(cpu0);
    // The same generation again, in memory only: what the disk adds.
    const memStart = performance.now();
    for (const id of config.nodes.keys()) generateNode(config, id, { templates, fileCache });
    const memoryOnlyMs = Math.round(performance.now() - memStart);
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    const total = done - start;
    const result = {
      nodes,
      directivesPerNode: directives,
      appliedDirectives: policies,
      loadMs: Math.round(loaded - start),
      generateAndWriteMs: Math.round(done - loaded),
      totalMs: Math.round(total),
      cpuMs,
      memoryOnlyMs,
      goalMs: GOAL_MS,
    };
    if (process.argv.includes("--json")) console.log(JSON.stringify(result));
    else {
      console.log(
        `Rudder generation: ${nodes} nodes x ${directives} directives (${policies} directives applied in all)`,
      );
      console.log(`  load configuration      ${result.loadMs} ms`);
      console.log(
        `  generate + write        ${result.generateAndWriteMs} ms (${((done - loaded) / nodes).toFixed(2)} ms per node)`,
      );
      console.log(
        `  total (wall)            ${result.totalMs} ms   goal < ${GOAL_MS} ms: ${total < GOAL_MS ? "met" : "NOT met"} (${(total / GOAL_MS).toFixed(2)} of the goal)`,
      );
      console.log(`  generate only (memory)  ${memoryOnlyMs} ms, the same nodes again without writing`);
      // On a shared machine the wall time includes waiting for a core; CPU time does not.
      console.log(`  total (CPU, user+sys)   ${cpuMs} ms   (${(cpuMs / GOAL_MS).toFixed(2)} of the goal)`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
