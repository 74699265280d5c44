/**
 * CONTRACT between the environment loader (src/puppet/env), Hiera
 * (src/puppet/hiera) and the compiler (src/puppet/eval): what a compile is
 * given. The loader fills these from puppet.conf, environment.conf, the
 * facts terminus and the ENC; the compiler only reads them.
 */

export interface PuppetModule {
  /** The module's short name (`ntp`, `stdlib`). */
  readonly name: string;
  /** Its directory (holds manifests/, functions/, types/, templates/, files/, lib/, data/, hiera.yaml). */
  readonly dir: string;
}

export interface PuppetEnvironment {
  readonly name: string;
  /** The environment's directory, when it has one (not for `--code` only runs). */
  readonly dir?: string;
  /** The main manifest files in load order (a directory's files sorted bytewise by path). */
  readonly manifests: readonly string[];
  /** `--code` / `-e`: evaluated instead of the manifests when given. */
  readonly code?: string;
  /** The module path, expanded, in search order. */
  readonly modulePath: readonly string[];
  /** Modules by name: the first on the module path wins. */
  readonly modules: ReadonlyMap<string, PuppetModule>;
  /** config_version's output, when configured. */
  readonly configVersion?: string;
}

/** Where definitions may be found, in the order the compiler tries them. */
export interface Autoloader {
  /**
   * Existing files that may define class or defined type `name`
   * (`a::b::c`), in the order Puppet loads them: the module's
   * `a/manifests/init.pp` (always loaded with the module), then
   * `a/manifests/b/c.pp`, then the 3.x fallback `a/manifests/b.pp`; a
   * top-level `a` is `a/manifests/init.pp`. Load each file once, stop when
   * the name is defined.
   */
  definitionFiles(name: string): readonly string[];
  /** Files that may define Puppet-language function `name`: only `a/functions/b/c.pp` (4.x: exact path). */
  functionFiles(name: string): readonly string[];
  /** Files that may define type alias `name` (`A::B` → `a/types/b.pp`). */
  typeAliasFiles(name: string): readonly string[];
  /** A Ruby function `lib/puppet/functions/**` or `lib/puppet/parser/functions/*.rb` defines `name`, if any (the compiler cannot run it: its error names it). */
  rubyFunctionFile(name: string): string | undefined;
  /** A Ruby resource type `lib/puppet/type/<name>.rb` in a module, if any. */
  rubyTypeFile(name: string): string | undefined;
  /** A module file for `template('mod/x.erb')` / `epp('mod/x.epp')` / `file('mod/x')`: `mod/templates/x.erb`. */
  moduleFile(kind: "templates" | "files", reference: string): string | undefined;
}

/** What the node is: the request the compiler compiles a catalog for. */
export interface NodeRequest {
  /** The certname as given (the catalog's `name`); the compiler lower-cases it to match node definitions. */
  readonly name: string;
  /** `$facts` (JSON-shaped: strings, numbers, booleans, null, arrays, objects). */
  readonly facts: Readonly<Record<string, unknown>>;
  /** `$trusted`: authenticated, certname, domain, extensions, hostname. */
  readonly trusted: Readonly<Record<string, unknown>>;
  /** `$server_facts` (serverversion, servername, serverip, environment). */
  readonly serverFacts: Readonly<Record<string, unknown>>;
  /**
   * Top-scope variables as Puppet sets them from the node's parameters: an
   * ENC's `parameters`, then each fact, then each server fact, the first of
   * a name winning (never `environment`: the compiler sets `$environment` to
   * the environment compiled, then `$trusted`, `$server_facts`, `$facts`).
   */
  readonly parameters: Readonly<Record<string, unknown>>;
  /**
   * Classes from an ENC, in its order, each with its parameters (empty for
   * a list entry or a class given none). Puppet lists them in this order at
   * the head of the catalog's `classes`, and evaluates them after the node
   * definition: first those given parameters, then the others, each group
   * in this order.
   */
  readonly classes: readonly {
    readonly name: string;
    readonly parameters: Readonly<Record<string, unknown>>;
  }[];
  /** Whether node definitions may be skipped because an ENC classified the node. */
  readonly fromEnc: boolean;
}
