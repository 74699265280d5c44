/**
 * What `body agent control` says about files promises: the default
 * `compare` of copies (`defaultcopytype`), the backup repository
 * (`default_repository`), and the files copied once per run
 * (`files_single_copy`) or defining `auto_` classes (`files_auto_define`).
 */
import type { PromiseEnvironment } from "../contract.js";
import { asStrings } from "../values.js";

function list(env: PromiseEnvironment, name: string): readonly string[] {
  return asStrings(env.controlValue?.("agent", name));
}

export function defaultCopyType(env: PromiseEnvironment): string | undefined {
  return list(env, "defaultcopytype")[0];
}

export function defaultRepository(env: PromiseEnvironment): string | undefined {
  return list(env, "default_repository")[0];
}

export function filesSingleCopy(env: PromiseEnvironment): readonly string[] {
  return list(env, "files_single_copy");
}

export function filesAutoDefine(env: PromiseEnvironment): readonly string[] {
  return list(env, "files_auto_define");
}

/** `copyfrom_restrict_keys`: the digests a server's key must be one of. */
export function copyfromRestrictKeys(env: PromiseEnvironment): readonly string[] {
  return list(env, "copyfrom_restrict_keys");
}

/** `timeout` (seconds) of connections to servers; undefined when not given. */
export function agentTimeout(env: PromiseEnvironment): number | undefined {
  const n = Number.parseInt(list(env, "timeout")[0] ?? "", 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * `bindtointerface` of body agent control: the local address outgoing
 * connections to servers are made from (cf-agent's SetBindInterface), or a
 * name the connection looks up (src/net/bind-address.ts); undefined when unset.
 */
export function bindToInterface(env: PromiseEnvironment): string | undefined {
  return list(env, "bindtointerface")[0] || undefined;
}

/** `protocol_version` of body common control. */
export function commonProtocolVersion(env: PromiseEnvironment): string | undefined {
  return asStrings(env.controlValue?.("common", "protocol_version"))[0];
}

/**
 * `tls_ciphers` and `tls_min_version` of body common control: what the
 * agent accepts on its outgoing TLS connections (OpenSSL's defaults when
 * unset, as in 3.21).
 */
export function commonTlsSettings(env: PromiseEnvironment): { ciphers?: string; minTlsVersion?: string } {
  const ciphers = asStrings(env.controlValue?.("common", "tls_ciphers"))[0];
  const minTlsVersion = asStrings(env.controlValue?.("common", "tls_min_version"))[0];
  return {
    ...(ciphers ? { ciphers } : {}),
    ...(minTlsVersion ? { minTlsVersion } : {}),
  };
}
