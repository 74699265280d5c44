/**
 * `field_edits`, as cf-agent 3.21 edits fields. Each line (in the region,
 * if any) fully matching the promiser is split at the `field_separator`
 * regex (empty fields dropped unless `allow_blank_fields`); the field
 * `select_field` (counted from 1, or from 0 with `start_fields_from_zero`;
 * `extend_fields` adds missing ones) is set or emptied, or, with a
 * `value_separator`, edited as a list of sub-values (`field_operation`:
 * append — the default —, prepend, alphanum, set, delete). A changed line
 * is joined again with the text the separator first matched, and, as in
 * cf-agent, each double quote in it gains a backslash.
 */
import type { Outcome } from "../outcome.js";
import { fromByteString } from "../../eval/regex/bytes.js";
import { splitOnRegex } from "../../eval/regex/match.js";
import { PcreError } from "../../eval/regex/pcre.js";
import type { ActivePromise, PromiseEnvironment, PromiseType } from "../contract.js";
import { asBoolean, asText } from "../values.js";
import { EditRecord, alreadyActed } from "./common.js";
import type { Line } from "./lines.js";
import { blockTextMatch, fullTextMatch, validRegex } from "./match.js";
import { regionOf, selectRegion } from "./region.js";
import { compareBytes } from "../../text/byte-order.js";

interface FieldSpec {
  readonly separator: string | undefined;
  /** 1-based; 0 or less when not given. */
  readonly field: number;
  readonly valueSeparator: string | undefined;
  readonly value: string | undefined;
  readonly operation: string | undefined;
  readonly extend: boolean;
  readonly blanks: boolean;
}

function readSpec(promise: ActivePromise): FieldSpec {
  const value = (name: string) => promise.bodyValue("edit_field", name);
  const raw = asText(value("select_field"));
  const parsed = raw !== undefined && /^\s*-?\d+/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
  const fromZero = asBoolean(value("start_fields_from_zero"), false);
  const field = Number.isNaN(parsed) ? -1 : parsed + (fromZero ? 1 : 0);
  const valueSeparator = asText(value("value_separator"));
  return {
    separator: asText(value("field_separator")),
    field,
    valueSeparator: valueSeparator ? valueSeparator[0] : undefined,
    value: asText(value("field_value")),
    operation: asText(value("field_operation")),
    extend: asBoolean(value("extend_fields"), false),
    blanks: asBoolean(value("allow_blank_fields"), false),
  };
}

/** A field's sub-values, split at `sep` (a backslash before it escapes it). */
function splitSubValues(text: string, sep: string): string[] {
  if (text === "") return [];
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let piece = "";
    while (i < text.length && text[i] !== sep) {
      if (text[i] === "\\" && text[i + 1] === sep) i++;
      piece += text[i];
      i++;
    }
    out.push(piece);
    if (i < text.length) i++;
  }
  return out;
}

/** Joins as cf-agent writes a list: each `"` escaped with a backslash. */
function joinValues(values: readonly string[], sep: string): string {
  return values.map((v) => v.replaceAll('"', '\\"')).join(sep);
}

class FieldEdit {
  constructor(
    readonly record: EditRecord,
    readonly spec: FieldSpec,
  ) {}

  get value(): string {
    return this.spec.value ?? "";
  }
  get file(): string {
    return this.record.filename;
  }

  /** Edits a list of sub-values in place; whether it changed. */
  private editSubValues(values: string[]): boolean {
    const { record, value, file } = this;
    switch (this.spec.operation) {
      case "delete": {
        let changed = false;
        for (let at = values.indexOf(value); at >= 0; at = values.indexOf(value)) {
          values.splice(at, 1);
          record.changed(`Deleted column field sub-value '${value}' in '${file}'`);
          changed = true;
        }
        return changed;
      }
      case "set":
        if (values.length === 1 && values[0] === value) {
          record.unchanged("Field sub-value set as promised");
          return false;
        }
        if (values.length === 0 && value === "") {
          record.unchanged("Empty field sub-value set as promised");
          return false;
        }
        record.changed(`Set field sub-value '${value}' in '${file}'`);
        values.splice(0, values.length, value);
        return true;
      case "prepend":
      case "alphanum": {
        const present = values.includes(value);
        if (present) record.unchanged(`Field sub-value '${value}' already present in '${file}'`);
        else {
          values.unshift(value);
          const verb = this.spec.operation === "prepend" ? "Prepended" : "Inserted";
          record.changed(`${verb} field sub-value '${value}' in '${file}'`);
        }
        if (this.spec.operation === "alphanum") values.sort(compareBytes);
        return !present;
      }
      default:
        if (values.includes(value)) {
          record.unchanged(`Field sub-value '${value}' already present in '${file}'`);
          return false;
        }
        values.push(value);
        record.changed(`Appended field sub-value '${value}' in '${file}'`);
        return true;
    }
  }

  /** Edits the selected field of a line's fields in place; whether the line must be rewritten. */
  editFields(fields: string[]): boolean {
    const { record, spec, value, file } = this;
    if (spec.field > fields.length) {
      if (!spec.extend) {
        record.interrupted(
          `The file ${file} has only ${fields.length} fields, but there is a promise for field ${spec.field}`,
        );
        return false;
      }
      while (fields.length < spec.field) fields.push("");
    }
    const index = spec.field - 1;
    const current = fields[index] ?? "";
    if (spec.valueSeparator !== undefined) {
      if (!record.making(`edit field '${value}' in '${file}'`)) return false;
      const values = splitSubValues(current, spec.valueSeparator);
      if (!this.editSubValues(values)) return false;
      record.session.edits++;
      fields[index] = joinValues(values, spec.valueSeparator);
      return true;
    }
    if (spec.operation === "delete") {
      if (!record.making(`delete field value '${current}' in '${file}'`)) return false;
      fields[index] = "";
      record.changed(`Deleted column field value '' in '${file}'`);
    } else {
      if (!record.making(`set column field value '${current}' to '${value}' in '${file}'`)) return false;
      record.changed(`Set whole column field value '${current}' to '${value}' in '${file}'`);
      fields[index] = value;
    }
    record.session.edits++;
    return true;
  }

  /** Every matching line in `[first, stop)`. */
  run(first: Line | null, stop: Line | null): void {
    const { record, spec } = this;
    const { env, promise } = record;
    const separator = spec.separator as string;
    if (!validRegex(env, promise.promiser)) return;
    let found = false;
    for (let line = first; line && line !== stop; line = line.next) {
      if (!fullTextMatch(env, promise.promiser, line.text)) continue;
      found = true;
      env.log.verbose(`Matched line '${line.text}'`);
      const match = blockTextMatch(env, separator, line.text);
      if (!match) {
        record.interrupted(
          `Field edit, no fields found by promised pattern '${separator}' in '${this.file}'`,
        );
        return;
      }
      if (match.end - match.start > 512) {
        env.log.error("Line split criterion matches a huge part of the line, seems to be in error");
        return;
      }
      const fields = splitOnRegex(line.text, separator, Number.POSITIVE_INFINITY, spec.blanks);
      if (fields instanceof PcreError) return;
      if (this.editFields(fields)) line.text = joinValues(fields, fromByteString(match.groups[0] ?? ""));
    }
    if (!found) {
      record.failed(`No matched line to edit fields of for pattern '${promise.promiser}' in '${this.file}'`);
    }
  }
}

function evaluateFieldEdits(promise: ActivePromise, env: PromiseEnvironment): Outcome {
  const session = env.editing;
  if (!session) return "skipped";
  const record = new EditRecord(promise, env, session);
  const spec = readSpec(promise);
  const file = session.filename;
  const missing =
    spec.separator === undefined
      ? `No field_separator in promise to edit by column for '${promise.promiser}'`
      : spec.field <= 0
        ? `No select_field in promise to edit '${promise.promiser}'`
        : spec.value === undefined
          ? `No field_value is promised to column_edit '${promise.promiser}'`
          : undefined;
  if (missing) {
    record.failed(missing);
    record.ref("error");
    return "failed";
  }
  let first = session.lines.head;
  let stop: Line | null = null;
  const regionSpec = regionOf(promise, env);
  if (regionSpec) {
    const region = selectRegion(env, session.lines.head, regionSpec, file);
    if (!region) {
      record.interrupted(
        `The promised column edit '${promise.promiser}' could not select an edit region in '${file}'`,
      );
      return record.outcome;
    }
    first = region.begin;
    stop = region.end;
  }
  if (alreadyActed(promise, env, `column-${file}`)) return "skipped";
  new FieldEdit(record, spec).run(first, stop);
  return record.close("fields_edit");
}

export const fieldEditsPromiseType: PromiseType = {
  name: "field_edits",
  evaluate: evaluateFieldEdits,
};
