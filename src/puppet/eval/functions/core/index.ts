/**
 * Puppet 7's core functions written in TypeScript: the pure ones and those
 * needing only the call context. Functions that touch the catalog or the
 * scope are registered by the compiler (see ../registry.ts).
 */
import type { FunctionTable, PuppetFunction } from "../registry.js";
import * as col from "./collections.js";
import * as it from "./iteration.js";
import { legacyFunctions } from "./legacy.js";
import * as misc from "./misc.js";
import * as num from "./numbers.js";
import * as obj from "./objects.js";
import * as str from "./strings.js";
import { rubyToS } from "./ruby-text.js";

const table: Record<string, PuppetFunction> = {
  ...legacyFunctions,
  convert_to: misc.convert_to,
  dig: col.dig,
  empty: col.empty,
  flatten: col.flatten,
  get: col.get,
  getvar: col.getvar,
  keys: col.keys,
  length: col.length,
  scanf: misc.scanf,
  size: col.size,
  slice: col.slice,
  sort: col.sort,
  strftime: misc.strftime,
  tree_each: col.tree_each,
  type: misc.type,
  unique: col.unique,
  unwrap: col.unwrap,
  values: col.values,
  abs: num.abs,
  annotate: obj.annotate,
  all: it.all,
  any: it.any,
  camelcase: str.camelcase,
  capitalize: str.capitalize,
  ceiling: num.ceiling,
  chomp: str.chomp,
  chop: str.chop,
  compare: num.compare,
  downcase: str.downcase,
  each: it.each,
  filter: it.filter,
  floor: num.floor,
  group_by: it.group_by,
  index: it.index,
  join: str.makeJoin(rubyToS),
  lest: it.lest,
  lstrip: str.lstrip,
  map: it.map,
  match: str.match,
  max: num.max,
  min: num.min,
  partition: it.partition,
  reduce: it.reduce,
  regsubst: str.regsubst,
  reverse_each: it.reverse_each,
  round: num.round,
  rstrip: str.rstrip,
  split: str.split,
  step: it.step,
  strip: str.strip,
  upcase: str.upcase,
  versioncmp: num.versioncmp,
  with: it.withFn,
};

export const coreFunctions: FunctionTable = new Map<string, PuppetFunction>([
  ...Object.entries(table),
  ["then", it.thenFn],
]);
