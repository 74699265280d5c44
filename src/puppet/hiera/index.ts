/**
 * Hiera 5 as Puppet 7.23 runs it: the global, environment and module
 * layers, hiera.yaml versions 5 (and 4, 3 where Puppet still reads them),
 * yaml_data and json_data, interpolation, merge strategies,
 * `lookup_options`, and the `lookup` function.
 *
 * Use, once per compile (files are read and parsed once per instance):
 *
 *     const hiera = openHiera({ environment, hieraConfig, confdir, codedir, warn });
 *     compileCatalog({ ..., hiera, functions: hieraFunctions(hiera) });  // lookup, hiera, hiera_array...
 *
 * - `hiera.lookup(key, scope, { merge?, moduleName? })` is automatic class
 *   parameter lookup (`ntp::servers`): the value, or NOT_FOUND. The module
 *   layer consulted is the key's first segment unless `moduleName` is given.
 * - Failures (bad hiera.yaml, unparsable data, a failed merge, a recursive
 *   lookup) throw a `HieraError` whose message is Puppet's text.
 * - Warnings Puppet prints (ignored version 3 files, module data outside the
 *   module's namespace, a data file that is not a hash) go to `warn` when
 *   given, else to the logger.
 * - Variables are read through the scope: `facts`, `trusted`, `x`, and
 *   names with a leading `::` (`%{::trusted.certname}`) for top scope, as
 *   written in the data.
 *
 * Not done: lookup_key/data_dig functions and data_hash functions other
 * than yaml_data/json_data (eyaml, hocon, functions written in Puppet or
 * Ruby) fail with Puppet's "Unable to find ... function" text; Hiera 3
 * backends other than yaml/json; `--explain`; the "Undefined variable"
 * warning for interpolated unset variables (the scope contract cannot tell
 * unset from undef); hiera_* location overrides (the third argument).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PuppetEnvironment } from "../env/environment.js";
import type { HieraProvider } from "../eval/compile-api.js";
import type { FunctionTable, PuppetFunction } from "../eval/functions/registry.js";
import type { Logger } from "../../system/logger.js";
import { makeHieraFunction, makeLookupFunction } from "./function.js";
import { HieraLookup } from "./lookup.js";

export { HieraError } from "./errors.js";
export { HieraLookup } from "./lookup.js";

export interface HieraOptions {
  readonly environment: PuppetEnvironment;
  /** Puppet's confdir: the global layer is `$confdir/hiera.yaml` (Puppet's default config when absent). */
  readonly confdir?: string;
  /** Puppet's codedir: `$codedir/hiera.yaml`, when it exists, is the global layer instead. */
  readonly codedir?: string;
  /** Puppet's `hiera_config` setting, when set: the global hiera.yaml, used as is. */
  readonly hieraConfig?: string;
  readonly logger?: Logger;
  /** Where Puppet's `Warning:` lines go (the compile's messages); the logger otherwise. */
  readonly warn?: (message: string) => void;
}

/** A Hiera for one compile. */
export function openHiera(options: HieraOptions): HieraLookup {
  return new HieraLookup({
    environment: options.environment,
    globalConfig: globalConfigPath(options),
    codedir: options.codedir,
    warn: options.warn ?? ((m: string) => options.logger?.warning(m)),
  });
}

function globalConfigPath(options: HieraOptions): string {
  if (options.hieraConfig) return options.hieraConfig;
  // Puppet 7: $codedir/hiera.yaml when it exists, else $confdir/hiera.yaml.
  const inCode = options.codedir ? join(options.codedir, "hiera.yaml") : undefined;
  if (inCode && existsSync(inCode)) return inCode;
  return join(options.confdir ?? "/etc/puppetlabs/puppet", "hiera.yaml");
}

/** `lookup` and the deprecated `hiera`, `hiera_array`, `hiera_hash`, `hiera_include` over the compile's Hiera. */
export function hieraFunctions(hiera: HieraProvider): FunctionTable {
  if (!(hiera instanceof HieraLookup)) throw new TypeError("hieraFunctions needs the Hiera openHiera made");
  const table = new Map<string, PuppetFunction>([["lookup", makeLookupFunction(hiera)]]);
  for (const name of ["hiera", "hiera_array", "hiera_hash", "hiera_include"] as const)
    table.set(name, makeHieraFunction(hiera, name));
  return table;
}

/** The `lookup` function over a Hiera made by `openHiera` (the compile's: one per compile). */
export function lookupFunction(hiera: HieraProvider): PuppetFunction {
  if (!(hiera instanceof HieraLookup)) throw new TypeError("lookupFunction needs the Hiera openHiera made");
  return makeLookupFunction(hiera);
}
