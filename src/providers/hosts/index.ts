/**
 * The hosts provider: entries of a hosts file, inspected, compared with a
 * desired state and rewritten atomically (other lines kept) unless in a
 * dry run. Puppet's `host` type goes through `ensureHost`.
 */
export { ensureHost, type HostOptions, type HostResult, type HostSpec } from "./ensure.js";
export {
  type HostEntry,
  type HostsLine,
  hostsHeader,
  parseHosts,
  renderEntry,
  renderHosts,
} from "./hosts-file.js";
