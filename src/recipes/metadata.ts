/**
 * A cookbook's metadata.json, validated: `name` and `version` strings,
 * `dependencies` an object of cookbook name to version constraint (Chef
 * writes `depends 'x'` in metadata.rb as `"dependencies": {"x": ">= 0.0.0"}`
 * in metadata.json). Only the JSON form is read; a cookbook without it is
 * named after its directory, version 0.0.0, with no dependencies.
 */
import { existsSync } from "node:fs";
import { basename, join } from "node:path";
import { isObject, type JsonDocument, readJsonDocument } from "./json-file.js";
import type { CookbookManifest } from "./model.js";
import { isConstraint, parseVersion } from "./versions.js";

const NAME = /^[A-Za-z0-9_-]+$/;

/** Reads `<directory>/metadata.json`; bad metadata is a RecipesError at its place. */
export function readManifest(directory: string): CookbookManifest {
  const file = join(directory, "metadata.json");
  if (!existsSync(file)) return { name: basename(directory), version: "0.0.0", dependencies: {}, directory };
  const doc: JsonDocument = readJsonDocument(file);
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
