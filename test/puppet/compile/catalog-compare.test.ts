import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { compareCatalogs, formatDifference, normaliseCatalog } from "../../../src/puppet/catalog-compare.js";
import { fixturesDir, judge, loadRecordedDir } from "./harness.js";

const base = {
  tags: ["settings", "a"],
  name: "n1",
  version: 1700000000,
  code_id: null,
  catalog_uuid: "11111111-2222-3333-4444-555555555555",
  catalog_format: 2,
  environment: "production",
  resources: [
    { type: "Stage", title: "main", tags: ["stage"], exported: false, parameters: { name: "main" } },
    { type: "Class", title: "A", tags: ["class", "a"], exported: false },
    {
      type: "File",
      title: "/etc/x",
      tags: ["file", "class", "a"],
      file: "/tmp/r1/code/environments/production/modules/a/manifests/init.pp",
      line: 3,
      exported: false,
      parameters: {
        ensure: "file",
        content: "x\n",
        require: ["Package[p]", "Service[s]"],
        h: { a: 1, b: [1, 2] },
      },
    },
  ],
  edges: [
    { source: "Stage[main]", target: "Class[A]" },
    { source: "Class[A]", target: "File[/etc/x]" },
  ],
  classes: ["settings", "a"],
};

function variant(change: (c: typeof base) => void): typeof base {
  const c = structuredClone(base);
  change(c);
  return c;
}

test("volatile keys, tag order, edge order, hash key order and the code directory do not count", () => {
  const other = variant((c) => {
    c.version = 1800000000;
    c.catalog_uuid = "99999999-2222-3333-4444-555555555555";
    (c as { code_id: string | null }).code_id = "abc";
    c.tags = ["a", "settings"];
    c.edges.reverse();
    const f = c.resources[2] as { file: string; tags: string[]; parameters: Record<string, unknown> };
    f.file = "/var/tmp/zz/code/environments/production/modules/a/manifests/init.pp";
    f.tags = ["a", "class", "file"];
    f.parameters = {
      h: { b: [1, 2], a: 1 },
      content: "x\n",
      ensure: "file",
      require: ["Package[p]", "Service[s]"],
    };
  });
  const cmp = compareCatalogs(base, other, { codeDirA: "/tmp/r1/code", codeDirB: "/var/tmp/zz/code/" });
  assert.deepEqual(cmp.differences, []);
  assert.ok(cmp.equal);
  const strict = compareCatalogs(base, other, {
    codeDirA: "/tmp/r1/code",
    codeDirB: "/var/tmp/zz/code",
    tagOrder: true,
  });
  assert.ok(strict.equal, "tag order is reported, not a difference");
  assert.deepEqual(
    strict.differences.map((d) => d.category),
    ["tag-order", "tag-order"],
  );
});

test("each kind of difference is found and rendered with the resource and field", () => {
  const cases: [string, (c: typeof base) => void, string, string][] = [
    [
      "header",
      (c) => {
        c.environment = "other";
      },
      "header",
      'environment: Puppet "production" | tend "other"',
    ],
    [
      "a parameter deep inside",
      (c) => {
        (c.resources[2] as { parameters: { h: { b: number[] } } }).parameters.h.b[1] = 3;
      },
      "parameters",
      "File[/etc/x] parameters.h.b[1]: Puppet 2 | tend 3",
    ],
    [
      "array order in a parameter",
      (c) => void (c.resources[2] as { parameters: { require: string[] } }).parameters.require.reverse(),
      "parameters",
      'File[/etc/x] parameters.require[0]: Puppet "Package[p]" | tend "Service[s]"',
    ],
    [
      "line",
      (c) => {
        (c.resources[2] as { line: number }).line = 4;
      },
      "resource-field",
      "File[/etc/x] line: Puppet 3 | tend 4",
    ],
    [
      "a tag",
      (c) => void (c.resources[1] as { tags: string[] }).tags.push("extra"),
      "tags",
      'Class[A] tags: only in Puppet []; only in tend ["extra"]',
    ],
    ["a missing resource", (c) => void c.resources.pop(), "missing-resource", "File[/etc/x]: only in Puppet"],
    [
      "an extra resource",
      (c) => void c.resources.push({ type: "Notify", title: "x", tags: [], exported: false }),
      "extra-resource",
      "Notify[x]: only in tend",
    ],
    [
      "resource order",
      (c) => void c.resources.reverse(),
      "resource-order",
      "resource order differs at resources[0]: Puppet Stage[main], tend File[/etc/x]",
    ],
    [
      "an edge",
      (c) => {
        c.edges[1] = { source: "Stage[main]", target: "File[/etc/x]" };
      },
      "edges",
      'edges: only in Puppet ["Class[A] → File[/etc/x]"]; only in tend ["Stage[main] → File[/etc/x]"]',
    ],
    ["class order", (c) => void c.classes.reverse(), "classes", 'classes[0]: Puppet "settings" | tend "a"'],
    [
      "exported",
      (c) => {
        (c.resources[1] as { exported: boolean }).exported = true;
      },
      "resource-field",
      "Class[A] exported: Puppet false | tend true",
    ],
  ];
  for (const [what, change, category, text] of cases) {
    const cmp = compareCatalogs(base, variant(change));
    assert.equal(cmp.equal, false, what);
    const first = cmp.differences[0];
    assert.ok(first, what);
    assert.equal(first.category, category, what);
    assert.equal(formatDifference(first, ["Puppet", "tend"]), text, what);
  }
});

test("limit stops at the first difference; normaliseCatalog drops the volatile keys", () => {
  const other = variant((c) => {
    c.resources.pop();
    c.classes.pop();
  });
  assert.equal(compareCatalogs(base, other).differences.length, 2);
  assert.equal(compareCatalogs(base, other, { limit: 1 }).differences.length, 1);
  const n = normaliseCatalog(base, "/tmp/r1/code");
  assert.equal("version" in n || "catalog_uuid" in n || "code_id" in n, false);
  assert.equal(
    (n.resources as { file?: string }[])[2]?.file,
    "$codedir/environments/production/modules/a/manifests/init.pp",
  );
});

test("every recorded snippet catalog judged against itself is identical (the normaliser on real catalogs)", () => {
  const recorded = loadRecordedDir(join(fixturesDir, "snippets"));
  let catalogs = 0;
  for (const r of recorded) {
    const messages = (r.messages ?? [])
      .filter((m) => m.level === "warning" || (m.level === "notice" && m.source.startsWith("Scope(")))
      .map((m) => ({ level: m.level, message: m.message }));
    if (r.catalog) {
      catalogs++;
      const v = judge(r, { kind: "catalog", catalog: structuredClone(r.catalog), messages });
      assert.equal(v.category, "identical", `${r.id}: ${v.detail}`);
      assert.equal(v.warningsDiffer, false, r.id);
    } else {
      assert.equal(judge(r, { kind: "error", message: "x", messages }).category, "both fail");
      assert.equal(judge(r, { kind: "crash", message: "TypeError: x" }).pass, false);
    }
  }
  assert.ok(catalogs > 400, `${catalogs} catalogs`);
});
