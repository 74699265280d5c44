/**
 * A cookbook's manifest, validated: `name` and `version` strings,
 * `dependencies` an object of cookbook name to version constraint. Read
 * from metadata.json, else from metadata.rb (its declarative subset, read
 * into the same JSON shape Chef's `knife cookbook metadata` writes:
 * `depends 'x'` is `"dependencies": {"x": ">= 0.0.0"}`), as chef-client
 * prefers the JSON form when both are there. A cookbook with neither is
 * named after its directory, version 0.0.0, with no dependencies.
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { isObject, type JsonDocument, readJsonDocument } from "./json-file.js";
import { readMetadataRb } from "./metadata-rb.js";
import type { CookbookManifest } from "./model.js";
import { isConstraint, parseVersion } from "./versions.js";

const NAME = /^[A-Za-z0-9_-]+$/;

/** Reads `<directory>/metadata.json`; bad metadata is a RecipesError at its place. */
export function readManifest(directory: string): CookbookManifest {
  const json = join(directory, "metadata.json");
  const ruby = join(directory, "metadata.rb");
  const file = existsSync(json) ? json : existsSync(ruby) ? ruby : undefined;
  if (!file) return { name: basename(directory), version: "0.0.0", dependencies: {}, directory };
  const doc: JsonDocument = file === json ? readJsonDocument(file) : readMetadataRb(file);
  const meta = doc.value;
  if (!isObject(meta)) return doc.fail("invalid-metadata", "metadata.json must hold an object");
  const name = meta.name ?? basename(directory);
  if (typeof name !== "string" || !NAME.test(name))
    doc.fail("invalid-metadata", "'name' must be a cookbook name (letters, digits, '_' and '-')", "name");
  const version = meta.version ?? "0.0.0";
  if (typeof version !== "string" || !parseVersion(version))
    doc.fail("invalid-metadata", `'version' must be a version like "1.2.3"`, "version");
  const dependencies = meta.dependencies ?? {};
  if (!isObject(dependencies))
    doc.fail(
      "invalid-metadata",
      "'dependencies' must be an object of cookbook name to constraint",
      "dependencies",
    );
  for (const [dep, constraint] of Object.entries(dependencies)) {
    if (!NAME.test(dep))
      doc.fail("invalid-metadata", `'${dep}' is not a cookbook name`, `dependencies.${dep}`);
    if (typeof constraint !== "string" || !isConstraint(constraint))
      doc.fail(
        "invalid-metadata",
        `the constraint on '${dep}' must be a version constraint like ">= 1.0.0" or "~> 2.1"`,
        `dependencies.${dep}`,
      );
  }
  return {
    name,
    version,
    dependencies: dependencies as Record<string, string>,
    directory,
    metadataFile: file,
  };
}
