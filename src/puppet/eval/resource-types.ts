/**
 * What the compiler knows of the resource types it cannot evaluate: Puppet
 * 7.23's built-in types (lib/puppet/type/*.rb), the core-module types Debian
 * installs beside Puppet (cron, host) and the Ruby types of the modules tend
 * compiles (concat's concat_file and concat_fragment, stdlib's file_line and
 * anchor). For each: its parameters and properties (an attribute not among
 * them, not `name` and not a metaparameter is an error, Puppet's
 * "no parameter named 'x'"), its namevars (Puppet's key_attributes, for the
 * uniqueness of resources) and, when not the trivial `(.*)`, the title
 * patterns that split a title into namevar values (file strips trailing
 * slashes: `File['/tmp/']` is path `/tmp`).
 *
 * The tables were read from Puppet itself (`Puppet::Type.type(t)`:
 * `parameters`, `validproperties`, `key_attributes`, `title_patterns`) in one
 * Ruby process. Types defined in Puppet code (defined types) are not here:
 * the compiler knows their parameters from their definitions. Types absent
 * from this table are unknown (undefined): the compiler reports the Ruby type
 * it cannot load.
 */

/** What the compiler needs of one Ruby resource type. */
export interface ResourceTypeInfo {
  /** Lower-case type name: `file`, `concat_fragment`. */
  readonly name: string;
  /** The type's parameters and properties (metaparameters are not listed: see `isValidAttribute`). */
  readonly parameters: ReadonlySet<string>;
  /** The subset of `parameters` that are properties (managed state). */
  readonly properties: ReadonlySet<string>;
  /** Puppet's key_attributes, in its order; the first is the namevar (`path` for file, `command` for exec). */
  readonly namevars: readonly string[];
  /**
   * How a title maps onto namevars, first match wins; absent means the whole
   * title is the first namevar's value.
   */
  readonly titlePatterns?: readonly TitlePattern[];
}

/** A title pattern: the capture groups in order give the namevars' values. */
export interface TitlePattern {
  readonly pattern: RegExp;
  readonly namevars: readonly string[];
}

/** Puppet's metaparameters, valid on every resource (also on defined types). */
export const METAPARAMETERS: ReadonlySet<string> = new Set(
  "noop schedule audit loglevel alias tag require subscribe before notify stage".split(" "),
);

interface RawType {
  parameters: string;
  properties: string;
  namevars: string[];
  titlePatterns?: TitlePattern[];
}

const RAW: Record<string, RawType> = {
  exec: {
    parameters:
      "command path user group cwd logoutput refresh environment umask timeout tries try_sleep refreshonly creates unless onlyif provider",
    properties: "returns",
    namevars: ["command"],
  },
  file: {
    parameters:
      "path backup recurse recurselimit max_files replace force ignore links purge sourceselect show_diff staging_location validate_cmd validate_replacement provider checksum source source_permissions selinux_ignore_defaults",
    properties:
      "content checksum_value target ensure owner group mode type seluser selrole seltype selrange ctime mtime",
    namevars: ["path"],
  },
  filebucket: {
    parameters: "name server port path",
    properties: "",
    namevars: ["name"],
  },
  group: {
    parameters:
      "auth_membership name allowdupe ia_load_module attribute_membership system forcelocal provider",
    properties: "ensure gid members attributes",
    namevars: ["name"],
  },
  notify: {
    parameters: "withpath name",
    properties: "message",
    namevars: ["name"],
  },
  package: {
    parameters:
      "name provider command source instance status adminfile responsefile configfiles category platform root vendor description allowcdrom enable_only install_only install_options uninstall_options allow_virtual reinstall_on_refresh",
    properties: "ensure package_settings flavor mark",
    namevars: ["name", "provider", "command"],
  },
  resources: {
    parameters: "name purge unless_system_user unless_uid",
    properties: "",
    namevars: ["name"],
  },
  schedule: {
    parameters: "name range periodmatch period repeat weekday",
    properties: "",
    namevars: ["name"],
  },
  service: {
    parameters:
      "logonpassword binary hasstatus name path pattern restart start status stop control hasrestart manifest timeout provider",
    properties: "enable ensure logonaccount flags",
    namevars: ["name"],
  },
  stage: {
    parameters: "name",
    properties: "",
    namevars: ["name"],
  },
  tidy: {
    parameters: "path recurse max_files matches backup age size type rmdirs",
    properties: "",
    namevars: ["path"],
  },
  user: {
    parameters:
      "name membership system allowdupe managehome role_membership auth_membership profile_membership key_membership ia_load_module attribute_membership forcelocal purge_ssh_keys provider",
    properties:
      "ensure home uid gid comment shell password password_min_age password_max_age password_warn_days groups expiry roles auths profiles keys project attributes salt iterations loginclass",
    namevars: ["name"],
  },
  // puppetlabs-cron_core 1.1.0 (Debian: /usr/share/puppet/modules)
  cron: {
    parameters: "name provider",
    properties: "ensure command special minute hour weekday month monthday environment user target",
    namevars: ["name"],
  },
  // puppetlabs-host_core 1.1.0 (Debian: /usr/share/puppet/modules)
  host: {
    parameters: "name provider",
    properties: "ensure ip host_aliases comment target",
    namevars: ["name"],
  },
  // puppetlabs-concat 9.1.0
  concat_file: {
    parameters:
      "tag path owner group mode order backup replace validate_cmd ensure_newline format force selinux_ignore_defaults selrange selrole seltype seluser show_diff create_empty_file",
    properties: "ensure",
    namevars: ["path"],
  },
  // puppetlabs-concat 9.1.0
  concat_fragment: {
    parameters: "name target content source order tag",
    properties: "",
    namevars: ["name"],
  },
  // puppetlabs-stdlib 9.7.0
  file_line: {
    parameters:
      "name match match_for_absence multiple after path replace replace_all_matches_not_matching_line encoding append_on_no_match provider",
    properties: "ensure line",
    namevars: ["name"],
  },
  // puppetlabs-stdlib 9.7.0
  anchor: {
    parameters: "name",
    properties: "",
    namevars: ["name"],
  },
};

// Ruby's `^(\/|.+:\/|.*[^\/])\/*\Z`: a title without its trailing slashes.
(RAW.file as RawType).titlePatterns = [{ pattern: /^(\/|.+:\/|.*[^/])\/*$/, namevars: ["path"] }];

const cache = new Map<string, ResourceTypeInfo>();

/** The Ruby resource type named `name` (any case), or undefined when tend does not know it. */
export function resourceTypeInfo(name: string): ResourceTypeInfo | undefined {
  const key = name.toLowerCase();
  const hit = cache.get(key);
  if (hit) return hit;
  const raw = Object.hasOwn(RAW, key) ? RAW[key] : undefined;
  if (!raw) return undefined;
  const properties = new Set(words(raw.properties));
  const info: ResourceTypeInfo = {
    name: key,
    parameters: new Set([...words(raw.parameters), ...properties]),
    properties,
    namevars: raw.namevars,
    ...(raw.titlePatterns ? { titlePatterns: raw.titlePatterns } : {}),
  };
  cache.set(key, info);
  return info;
}

/** Names of every type in the table, sorted. */
export function knownResourceTypes(): string[] {
  return Object.keys(RAW).sort();
}

/**
 * Whether `attribute` may be given to a resource of type `info`: `name`
 * always (Puppet maps it to the namevar), the type's parameters and
 * properties, and the metaparameters.
 */
export function isValidAttribute(info: ResourceTypeInfo, attribute: string): boolean {
  return attribute === "name" || info.parameters.has(attribute) || METAPARAMETERS.has(attribute);
}

/**
 * The namevar values of a resource titled `title` when its parameters do not
 * set them: the first title pattern that matches, else the whole title for
 * the first namevar.
 */
export function namevarsFromTitle(info: ResourceTypeInfo, title: string): Record<string, string> {
  for (const tp of info.titlePatterns ?? []) {
    const m = tp.pattern.exec(title);
    if (!m) continue;
    const out: Record<string, string> = {};
    tp.namevars.forEach((n, i) => {
      const v = m[i + 1];
      if (v !== undefined) out[n] = v;
    });
    return out;
  }
  return { [info.namevars[0] as string]: title };
}

function words(s: string): string[] {
  return s === "" ? [] : s.split(" ");
}
