/**
 * `tend puppet catalog diff A.json B.json`: compares two Puppet 7 catalogs
 * (tend's and Puppet's, or two runs) after neutralising what changes on every
 * compile (src/puppet/catalog-compare.ts) and prints the differences.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type CatalogJson, compareCatalogs, formatDifference } from "../puppet/catalog-compare.js";
import { type CliIo, EXIT_FAILURE, EXIT_OK } from "./io.js";

export const catalogDiffUsage = `Usage: tend puppet catalog diff A.json B.json [OPTIONS]

Compares two catalogs as puppet catalog compile --render-as json prints them,
ignoring version, catalog_uuid, code_id and the code directory's path in the
resources' file (with --codedir-a/--codedir-b). Resources are compared by
Type[title]: file, line, exported, kind and parameters deeply, tags as sets;
then the resources' order, the edges (as a set), the classes (in order) and
the catalog's tags. Exit status: 0 the same, 1 different, 2 trouble.

Options:
      --codedir-a DIR   A's code directory (removed from resources' file)
      --codedir-b DIR   B's code directory
      --tag-order       also report tags listed in another order
      --json            the differences as JSON
  -h, --help            show this help
`;

const EXIT_TROUBLE = 2;

/** A catalog from a file: the JSON object, after any `Notice:` lines; a recording's `catalog` member. */
function readCatalog(path: string, cwd: string): CatalogJson {
  const text = readFileSync(resolve(cwd, path), "utf8");
  const start = text.search(/^\{/m);
  if (start < 0) throw new Error(`${path}:1:1: not a catalog: expected a JSON object`);
  let data: unknown;
  try {
    data = JSON.parse(text.slice(start));
  } catch (error) {
    throw new Error(`${path}: not a catalog: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new Error(`${path}:1:1: not a catalog: expected a JSON object`);
  const record = data as Record<string, unknown>;
  if (!("resources" in record) && record.catalog !== null && typeof record.catalog === "object")
    return record.catalog as CatalogJson;
  if (!Array.isArray(record.resources)) throw new Error(`${path}: not a catalog: no "resources" array`);
  return record;
}

export async function runCatalogDiff(args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr(`tend puppet catalog diff: ${(error as Error).message}\n\n${catalogDiffUsage}`);
    return EXIT_TROUBLE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(catalogDiffUsage);
    return EXIT_OK;
  }
  if (positionals.length !== 2) {
    io.stderr(
      `tend puppet catalog diff: expected two catalog files, got ${positionals.length}\n\n${catalogDiffUsage}`,
    );
    return EXIT_TROUBLE;
  }
  const [pathA, pathB] = positionals as [string, string];
  let a: CatalogJson;
  let b: CatalogJson;
  try {
    a = readCatalog(pathA, io.cwd);
    b = readCatalog(pathB, io.cwd);
  } catch (error) {
    io.stderr(`tend puppet catalog diff: ${(error as Error).message}\n`);
    return EXIT_TROUBLE;
  }
  const cmp = compareCatalogs(a, b, {
    codeDirA: values["codedir-a"],
    codeDirB: values["codedir-b"],
    tagOrder: values["tag-order"] === true,
  });
  if (values.json) {
    io.stdout(`${JSON.stringify({ equal: cmp.equal, differences: cmp.differences }, null, 2)}\n`);
  } else if (cmp.differences.length === 0) {
    io.stdout("The catalogs are the same.\n");
  } else {
    const labels: [string, string] = [pathA, pathB];
    const count = cmp.differences.filter((d) => d.category !== "tag-order").length;
    io.stdout(
      cmp.equal
        ? `The catalogs are the same but for the order of tags:\n`
        : `The catalogs differ (${count} difference${count === 1 ? "" : "s"}):\n`,
    );
    for (const d of cmp.differences) io.stdout(`  ${formatDifference(d, labels)}\n`);
  }
  return cmp.equal ? EXIT_OK : EXIT_FAILURE;
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      "codedir-a": { type: "string" },
      "codedir-b": { type: "string" },
      "tag-order": { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
