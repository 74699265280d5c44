/**
 * Native implementations of puppetlabs-stdlib 9.7.0's Ruby functions, under
 * the names stdlib 9.7 defines: `stdlib::x` for the namespaced ones, and the
 * old un-namespaced names as stdlib keeps them (a deprecation warning, then
 * `stdlib::x`), plus the 3.x functions it still ships. Functions stdlib
 * writes in the Puppet language (stdlib::ensure, stdlib::deferrable_epp,
 * stdlib::time) are autoloaded by the compiler from the module, not here.
 *
 * Not implemented (a call is the compiler's "unknown function" error):
 * validate_augeas, validate_x509_rsa_key_pair, pry, uriescape on
 * Puppet 8; pw_hash's bcrypt variants fail with a clear message.
 * `shuffle` and `str2saltedsha512` are random, as in Ruby.
 */
import type { FunctionTable, PuppetFunction } from "../registry.js";
import * as col from "./collections.js";
import * as data from "./data.js";
import * as m from "./modern.js";
import { moduleFunctions } from "./modules.js";
import * as res from "./resources.js";
import * as str from "./strings.js";
import { shim } from "./support.js";
import * as sys from "./system.js";

/** stdlib::x functions, by their short name. */
const namespaced: Record<string, PuppetFunction> = {
  batch_escape: m.batch_escape,
  crc32: m.crc32,
  end_with: m.end_with,
  ensure_packages: res.ensure_packages,
  extname: m.extname,
  fqdn_rand_string: m.fqdn_rand_string,
  fqdn_rotate: m.fqdn_rotate,
  has_function: res.has_function,
  has_interface_with: m.has_interface_with,
  ip_in_range: m.ip_in_range,
  merge: m.merge,
  nested_values: m.nested_values,
  os_version_gte: m.os_version_gte,
  parsehocon: sys.parsehocon,
  powershell_escape: m.powershell_escape,
  seeded_rand: m.seeded_rand,
  seeded_rand_string: m.seeded_rand_string,
  sha256: m.sha256,
  shell_escape: m.shell_escape,
  sort_by: m.sort_by,
  start_with: m.start_with,
  str2resource: res.str2resource,
  to_json: data.to_json,
  to_json_pretty: data.to_json_pretty,
  to_python: data.to_python,
  to_ruby: data.to_ruby,
  to_toml: data.to_toml,
  to_yaml: data.to_yaml,
  type_of: m.type_of,
  validate_domain_name: m.validate_domain_name,
  validate_email_address: m.validate_email_address,
  xml_encode: m.xml_encode,
};

/** The un-namespaced names stdlib 9.7 keeps as deprecated shims of stdlib::x. */
const SHIMS = [
  "batch_escape",
  "ensure_packages",
  "fqdn_rand_string",
  "fqdn_rotate",
  "has_interface_with",
  "merge",
  "os_version_gte",
  "parsehocon",
  "powershell_escape",
  "seeded_rand",
  "seeded_rand_string",
  "shell_escape",
  "to_json",
  "to_json_pretty",
  "to_python",
  "to_ruby",
  "to_toml",
  "to_yaml",
  "type_of",
  "validate_domain_name",
  "validate_email_address",
];

/** Un-namespaced functions that are not shims: 4.x ones and the 3.x API functions. */
const global: Record<string, PuppetFunction> = {
  deprecation: m.deprecation,
  fact: m.fact,
  is_a: m.is_a,
  parsepson: m.parsepson,
  time: m.time,
  validate_legacy: m.validate_legacy,
  validate_cmd: sys.validate_cmd,
  any2array: col.any2array,
  any2bool: str.any2bool,
  assert_private: res.assert_private,
  base64: str.base64,
  basename: str.basename,
  bool2num: str.bool2num,
  bool2str: str.bool2str,
  clamp: col.clamp,
  concat: col.concat,
  convert_base: str.convert_base,
  count: col.count,
  deep_merge: col.deep_merge,
  defined_with_params: res.defined_with_params,
  delete: col.delete_,
  delete_at: col.delete_at,
  delete_regex: col.delete_regex,
  delete_undef_values: col.delete_undef_values,
  delete_values: col.delete_values,
  difference: col.difference,
  dirname: str.dirname,
  dos2unix: str.dos2unix,
  enclose_ipv6: str.enclose_ipv6,
  ensure_resource: res.ensure_resource,
  ensure_resources: res.ensure_resources,
  fqdn_uuid: str.fqdn_uuid,
  get_module_path: res.get_module_path,
  getparam: res.getparam,
  glob: sys.glob,
  grep: col.grep,
  has_ip_address: str.has_ip_address,
  has_ip_network: str.has_ip_network,
  intersection: col.intersection,
  join_keys_to_values: col.join_keys_to_values,
  load_module_metadata: res.load_module_metadata,
  loadjson: data.loadjson,
  loadyaml: data.loadyaml,
  member: col.member,
  num2bool: str.num2bool,
  parsejson: data.parsejson,
  parseyaml: data.parseyaml,
  pick: col.pick,
  pick_default: col.pick_default,
  pw_hash: sys.pw_hash,
  prefix: col.prefix,
  range: col.range,
  regexpescape: str.regexpescape,
  reject: col.reject,
  reverse: col.reverse,
  shell_join: str.shell_join,
  shell_split: str.shell_split,
  shuffle: col.shuffle,
  squeeze: col.squeeze,
  str2bool: str.str2bool,
  str2saltedpbkdf2: str.str2saltedpbkdf2,
  str2saltedsha512: str.str2saltedsha512,
  suffix: col.suffix,
  swapcase: col.swapcase,
  to_bytes: str.to_bytes,
  union: col.union,
  unix2dos: str.unix2dos,
  uriescape: str.uriescape,
  values_at: col.values_at,
  zip: col.zip,
};

function buildTable(): Map<string, PuppetFunction> {
  const table = new Map<string, PuppetFunction>();
  for (const [name, f] of Object.entries(namespaced)) table.set(`stdlib::${name}`, f);
  for (const name of SHIMS) table.set(name, shim(name, namespaced[name] as PuppetFunction));
  for (const [name, f] of Object.entries(global)) table.set(name, f);
  for (const [name, f] of moduleFunctions) table.set(name, f);
  return table;
}

export const stdlibFunctions: FunctionTable = buildTable();
