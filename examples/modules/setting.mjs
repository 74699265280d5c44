#!/usr/bin/env node
// @ts-check
/**
 * An example promise module written with tend's module SDK: the `setting`
 * promise type keeps one `key=value` line in a configuration file.
 *
 *   setting:
 *     "/etc/app.conf" key => "port", value => "8080";
 *
 * The file is rewritten through a temporary file and a rename, so it is
 * never half-written. In a dry run (or with action_policy => "warn") it
 * only says what it would change. A change defines the class
 * `setting_<key>_changed` in the promise's bundle.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { ValidationError, runPromiseModule, string } from "tend/module-sdk";

/** @param {string} text */
const oneLine = (text) => (text.includes("\n") ? "must be on one line" : undefined);

/** @param {string} file */
function readLines(file) {
  try {
    const text = readFileSync(file, "utf8");
    return text === "" ? [] : text.replace(/\n$/, "").split("\n");
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === "ENOENT") return [];
    throw error;
  }
}

/** @param {string} file @param {readonly string[]} lines */
function writeAtomically(file, lines) {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString("hex")}`);
  try {
    writeFileSync(temp, `${lines.join("\n")}\n`, { flag: "wx" });
    renameSync(temp, file);
  } finally {
    rmSync(temp, { force: true });
  }
}

await runPromiseModule({
  name: "setting",
  version: "1.0.0",
  attributes: {
    key: string({ required: true, check: oneLine }),
    value: string({ required: true, check: oneLine }),
    separator: string({ default: "=", check: (s) => (s === "" ? "must not be empty" : oneLine(s)) }),
  },

  validate({ promiser, attributes }) {
    if (!isAbsolute(promiser)) throw new ValidationError(`'${promiser}' is not an absolute path`);
    if (attributes.key?.includes(attributes.separator ?? "=")) {
      throw new ValidationError(`the key '${attributes.key}' contains the separator`);
    }
  },

  evaluate({ promiser: file, attributes, warnOnly, log }) {
    const { key = "", value = "", separator = "=" } = attributes;
    const wanted = `${key}${separator}${value}`;
    const lines = readLines(file);
    const index = lines.findIndex((line) => line.trimStart().startsWith(`${key}${separator}`));
    if (index >= 0 && lines[index] === wanted) {
      log.verbose(`'${key}' is already '${value}' in '${file}'`);
      return "kept";
    }
    if (warnOnly) {
      log.warning(`Should set '${key}' to '${value}' in '${file}', but only warning promised`);
      return "not_kept";
    }
    if (index >= 0) lines[index] = wanted;
    else lines.push(wanted);
    try {
      writeAtomically(file, lines);
    } catch (error) {
      log.error(`Could not write '${file}': ${/** @type {Error} */ (error).message}`);
      return "not_kept";
    }
    log.info(`Set '${key}' to '${value}' in '${file}'`);
    return { result: "repaired", classes: [`setting_${key}_changed`] };
  },
});
