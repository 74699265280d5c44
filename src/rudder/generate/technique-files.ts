/**
 * The files of a policy's technique in the node's policy directory, at the
 * out paths metadata.xml gives (made unique per directive for `separated`
 * techniques). A TML is Rudder's StringTemplate `<name>.st`, rendered with
 * the policy's values as Rudder prepares them (PrepareTemplateVariables:
 * CFEngine-escaped strings, booleans for boolean variables, raw values
 * unescaped, TRACKINGKEY, RudderUniqueID); a technique folder may instead
 * hold the ready `<name>.cf`. FILEs are copied; a compiled YAML technique's
 * files come from the compiler.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Configuration } from "../config/model.js";
import { type TechniqueResource, allVariables } from "../config/technique.js";
import { cfEscape } from "../technique/cf-layout.js";
import { policyPath } from "./bundle-sequence.js";
import { type Policy, mergedValues, rudderUniqueId, trackingValues } from "./policy.js";
import { type StValue, renderStringTemplate } from "./string-template.js";

/** A resource's source: a StringTemplate to render, or a file to copy. */
export interface ResourceSource {
  readonly text: string;
  readonly stringTemplate: boolean;
}

/** Sources already read, by technique folder and resource name. */
export type SourceCache = Map<string, ResourceSource | undefined>;

export interface FileMessage {
  readonly level: "warning" | "error";
  readonly message: string;
}

/** Rudder's default for the system variable SHARED_FILES_FOLDER. */
const SHARED_FILES_FOLDER = "/var/rudder/configuration-repository/shared-files";

/** Adds the files of `p`'s technique to `files`. */
export function addTechniqueFiles(
  config: Configuration,
  p: Policy,
  files: Map<string, string>,
  messages: FileMessage[],
  cache: SourceCache,
  extra: ReadonlyMap<string, StValue> = new Map(),
): void {
  const t = p.technique;
  const id = `${t.id.name}/${t.id.version}`;
  for (const r of [...t.templates, ...t.files]) {
    const out = policyPath(r.outPath, p);
    if (files.has(out)) continue;
    const key = `${t.dir}\0${t.id.version}\0${r.name}`;
    if (!cache.has(key)) cache.set(key, resourceSource(config, p, r));
    const source = cache.get(key);
    if (source === undefined) {
      const expected = r.template ? `${r.name}.st or ${r.name}.cf` : r.name;
      messages.push({
        level: "warning",
        message: `technique '${id}': no ${expected} for ${r.template ? "TML" : "FILE"} '${r.name}', not written`,
      });
      continue;
    }
    if (!source.stringTemplate) {
      // A ready file of a `separated` technique names its bundle after the directive.
      const text =
        t.generationMode === "separated"
          ? source.text.split("RudderUniqueID").join(rudderUniqueId(p))
          : source.text;
      files.set(out, text);
      continue;
    }
    try {
      files.set(out, renderStringTemplate(source.text, templateAttributes(p, extra)));
    } catch (error) {
      messages.push({
        level: "error",
        message: `technique '${id}': template ${r.name}.st: ${(error as Error).message}`,
      });
    }
  }
}

function resourceSource(config: Configuration, p: Policy, r: TechniqueResource): ResourceSource | undefined {
  const t = p.technique;
  // Files in memory: a compiled YAML technique's, or a technique's at a git revision.
  const names: [string, boolean][] = r.template
    ? [
        [`${r.name}.st`, true],
        [`${r.name}.cf`, false],
        [r.name, false],
      ]
    : [[r.name, false]];
  for (const [n, stringTemplate] of names) {
    const generated = t.generatedFiles?.get(n);
    if (generated !== undefined) return { text: generated, stringTemplate };
  }
  const path = (n: string) =>
    r.fromRepository ? join(config.dir, n.slice("RUDDER_CONFIGURATION_REPOSITORY/".length)) : join(t.dir, n);
  const candidates: [string, boolean][] = r.template
    ? [
        [path(`${r.name}.st`), true],
        [path(`${r.name}.cf`), false],
      ]
    : [[path(r.name), false]];
  for (const [file, stringTemplate] of candidates) {
    if (isFile(file)) return { text: readFileSync(file, "utf8"), stringTemplate };
  }
  return undefined;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/**
 * The attributes a technique template sees for policy `p`: its variables,
 * then `extra` (the node's system variables, which win).
 */
export function templateAttributes(
  p: Policy,
  extra: ReadonlyMap<string, StValue> = new Map(),
): Map<string, StValue> {
  const attributes = new Map<string, StValue>();
  const values = mergedValues(p);
  for (const v of allVariables(p.technique.rootSection)) {
    const list = values.get(v.name) ?? [];
    const converted = list.map((x): string | boolean => {
      if (v.type === "boolean") return x.toLowerCase() === "true";
      return v.type === "raw" ? x : cfEscape(x);
    });
    attributes.set(
      v.name,
      converted.length === 0 ? undefined : converted.length === 1 ? converted[0] : converted,
    );
  }
  const tracking = trackingValues(p);
  attributes.set("TRACKINGKEY", tracking.length === 1 ? tracking[0] : tracking);
  attributes.set("RudderUniqueID", rudderUniqueId(p));
  attributes.set("SHARED_FILES_FOLDER", SHARED_FILES_FOLDER);
  for (const [k, v] of extra) attributes.set(k, v);
  return attributes;
}
