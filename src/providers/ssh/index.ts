/** SSH's line-oriented files: known_hosts and authorized_keys, for the parsed-file records provider. */
export { type AuthorizedKey, authorizedKeysFormat, parseKeyOptions } from "./authorized-keys.js";
export { type KnownHost, knownHostsFormat } from "./known-hosts.js";
