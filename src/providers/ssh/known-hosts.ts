/**
 * A known_hosts file (`/etc/ssh/ssh_known_hosts`): one host key a line,
 * `name[,alias...] type key`, as Puppet's sshkey provider reads and
 * writes it. A key is identified by its host name and key type.
 */
import type { RecordFormat } from "../parsed-file/records.js";

export interface KnownHost {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly type: string;
  readonly key: string;
}

export const knownHostsFormat: RecordFormat<KnownHost> = {
  parse(line) {
    if (line.startsWith("#") || /^\s*$/.test(line)) return undefined;
    const [names = "", type = "", ...rest] = line.trim().split(/\s+/);
    const [name = "", ...aliases] = names.split(",");
    return { name, aliases, type, key: rest.join(" ") };
  },
  render(h) {
    return `${[h.name, ...h.aliases].join(",")} ${h.type} ${h.key}`;
  },
};
