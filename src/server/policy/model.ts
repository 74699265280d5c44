/**
 * What `tend serverd` knows from the policy: the contract between the
 * server policy (this folder) and the daemon (`src/server/`).
 *
 * The daemon resolves a request to an absolute, normalised path (no `..`,
 * symlinks resolved) before it asks `checkPath`; shortcuts are expanded with
 * `expandShortcut` before that, as cf-serverd does.
 */
import type { Diagnostic } from "../../language/diagnostics.js";
import type { Logger } from "../../system/logger.js";

/** `body server control`, with cf-serverd 3.21's defaults filled in. */
export interface ServerControl {
  /** `port`; 5308. */
  readonly port: number;
  /** `bindtointerface`: the address to listen on; all addresses when absent. */
  readonly bindToInterface?: string;
  /** `allowconnects`: IP addresses, CIDR ranges or regexes that may connect. */
  readonly allowConnects: readonly string[];
  /** `denyconnects`. */
  readonly denyConnects: readonly string[];
  /** `allowallconnects`: hosts allowed more than one connection at a time. */
  readonly allowAllConnects: readonly string[];
  /** `trustkeysfrom`: hosts whose unknown keys are accepted and saved. */
  readonly trustKeysFrom: readonly string[];
  /** `allowusers`: users allowed to run `cfruncommand` (EXEC). */
  readonly allowUsers: readonly string[];
  /** `maxconnections`; 30. */
  readonly maxConnections: number;
  /** `allowciphers`; the daemon's default when absent. */
  readonly allowCiphers?: string;
  /** `allowtlsversion`; TLS 1.1 when absent. */
  readonly allowTlsVersion?: string;
  /** `allowlegacyconnects`: hosts allowed the classic protocol. */
  readonly allowLegacyConnects: readonly string[];
  /** `cfruncommand`. */
  readonly cfRunCommand?: string;
  /** `denybadclocks`; true. */
  readonly denyBadClocks: boolean;
  /** `logallconnections`; false. */
  readonly logAllConnections: boolean;
  /** `logencryptedtransfers`; false. */
  readonly logEncryptedTransfers: boolean;
  /** `listen`; true. */
  readonly listen: boolean;
  /** `hostnamekeys`; false (deprecated in 3.21, parsed and unused). */
  readonly hostnameKeys: boolean;
  /** `auditing`; false (no effect in 3.21). */
  readonly auditing: boolean;
  /** `call_collect_interval` in seconds (the policy gives minutes; Enterprise); 0 when absent. */
  readonly callCollectInterval: number;
  /** `collect_window` in seconds (Enterprise); 0 when absent. */
  readonly collectWindow: number;
  /** `dynamicaddresses` (no effect in 3.21). */
  readonly dynamicAddresses: readonly string[];
  /**
   * `serverfacility`; undefined when absent: cf-serverd then keeps the
   * facility it has (the one remembered from the last policy that set one).
   */
  readonly serverFacility: string | undefined;
}

/** Who is asking: known once the TLS dialog is done. */
export interface ConnectionInfo {
  /** The peer's IP address as text (IPv4 dotted, or IPv6; IPv4-mapped IPv6 already unmapped). */
  readonly ip: string;
  /** The peer's name by reverse lookup, when there is one. */
  readonly hostname?: string;
  /** The peer's key digest, "MD5=…" (or "SHA=…"). */
  readonly keyDigest: string;
  /** The user the peer claimed in IDENTITY. */
  readonly user: string;
  /** Always true under TLS (what `ifencrypted` tests). */
  readonly encrypted: boolean;
}

export type AccessResourceType = "path" | "literal" | "context" | "query" | "variable" | "bundle";

export interface PathDecision {
  readonly admitted: boolean;
  /**
   * The peer is in the deciding entry's `maproot` (its address, or its
   * hostname as a regex). 3.21 honours maproot only in the classic protocol.
   */
  readonly mapRoot: boolean;
}

export interface ServerPolicy {
  readonly control: ServerControl;
  /** The path ACL of an already normalised absolute path (directories may or may not end in "/"). */
  checkPath(path: string, conn: ConnectionInfo): PathDecision;
  /** Expands a `shortcut` (the request unchanged when it is none). */
  expandShortcut(requested: string, conn: ConnectionInfo): string;
  /** The ACL of a non-path resource: a literal's handle, a class regex (context), a query, a variable, a bundle name. */
  checkResource(type: Exclude<AccessResourceType, "path">, name: string, conn: ConnectionInfo): boolean;
  /** The value of an admitted `resource_type => "literal"` promise, by its handle or promiser. */
  literal(handle: string, conn: ConnectionInfo): string | undefined;
  /** Whether `user` may define each of `classes` with EXEC -D (roles `authorize`). */
  rolesAuthorize(classes: readonly string[], user: string): boolean;
  /**
   * The connection-level checks of server.c: `allowconnects` (everyone when
   * the list is empty) then `denyconnects`, each entry an address prefix,
   * CIDR, range or regex (FuzzySetMatch / regex).
   */
  admitsConnection(ip: string): "allowed" | "not-in-allowconnects" | "in-denyconnects";
  /** `allowallconnects`: the host may have more than one connection at a time. */
  allowsMultipleConnections(ip: string): boolean;
  /** `trustkeysfrom`: an unknown key from this host is accepted and saved. */
  trustsKeysFrom(ip: string): boolean;
  /** The peer is in `allowlegacyconnects` (the classic protocol is served to it). */
  allowsLegacyConnect(ip: string): boolean;
  /** `allowusers`: the user may run `cfruncommand` (EXEC). */
  allowsUser(user: string): boolean;
  /**
   * Whether a hostname rule is in the ACLs: only then does cf-serverd look
   * up the peer's name (otherwise `ConnectionInfo.hostname` may be left out).
   */
  readonly needReverseLookup: boolean;
  /**
   * EXEC's class check (MatchClasses): `name` is a class defined while the
   * server evaluated its policy (a class expression), or a regex matching one.
   */
  classMatches(name: string): boolean;
  /** The policy files read, to reload when one changes. */
  readonly sources: readonly string[];
  /** The classes defined while evaluating (hard, common and server bundles'); CONTEXT replies come from the persistent classes instead. */
  readonly classes: readonly string[];
}

export interface LoadServerPolicyOptions {
  /** The entry file (`-f`); relative names are taken in `workdir/inputs` as cf-serverd does. */
  readonly file: string;
  /** `$(sys.workdir)`. */
  readonly workdir: string;
  readonly logger: Logger;
  /** `-D` classes. */
  readonly defines?: readonly string[];
  /** `-N` classes. */
  readonly negates?: readonly string[];
  /** `$(sys.inputdir)`; `workdir/inputs` when absent. */
  readonly inputDir?: string;
  /** Skip missing inputs (`--ignore-missing-inputs`). */
  readonly ignoreMissingInputs?: boolean;
  /**
   * Called once `body server control` is read, before the server bundles
   * are evaluated (where cf-serverd's KeepControlPromises applies
   * `serverfacility`, at start and at each reload).
   */
  readonly onControl?: (control: ServerControl) => void;
}

export type LoadedServerPolicy =
  | { readonly ok: true; readonly policy: ServerPolicy; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly diagnostics: readonly Diagnostic[] };

export type LoadServerPolicy = (options: LoadServerPolicyOptions) => Promise<LoadedServerPolicy>;
