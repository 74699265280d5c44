/**
 * An authorized_keys file: `[options] type key [comment]` a line, as
 * Puppet's ssh_authorized_key provider reads and writes it (options split
 * at commas outside quotes; a key is identified by its comment).
 */
import type { RecordFormat } from "../parsed-file/records.js";

export interface AuthorizedKey {
  readonly options: readonly string[];
  readonly type: string;
  readonly key: string;
  /** The comment (the resource's name); "" when the line has none. */
  readonly name: string;
}

const KEY_TYPES = [
  "ssh-dss",
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "ecdsa-sk",
  "ed25519-sk",
  "sk-ecdsa-sha2-nistp256@openssh.com",
  "sk-ssh-ed25519@openssh.com",
  "ssh-rsa-cert-v01@openssh.com",
  "ssh-ed25519-cert-v01@openssh.com",
  "ssh-dss-cert-v01@openssh.com",
  "ecdsa-sha2-nistp256-cert-v01@openssh.com",
  "ecdsa-sha2-nistp384-cert-v01@openssh.com",
  "ecdsa-sha2-nistp521-cert-v01@openssh.com",
];

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const KEYLINE = new RegExp(`^(?:(.+)\\s+)?(${KEY_TYPES.map(esc).join("|")})\\s+([^ ]+)\\s*(.*)$`);

/** Options as sshd reads them: `a,b="x,y",c` gives `a`, `b="x,y"`, `c`. */
export function parseKeyOptions(text: string): string[] {
  const out: string[] = [];
  const re = /[ \t]*([-a-zA-Z0-9_]+="(?:[^"\\]|\\.)*?"|[-a-zA-Z0-9_]+)[ \t]*,?/y;
  let m: RegExpExecArray | null = re.exec(text);
  while (m !== null && m[0] !== "") {
    out.push(m[1] as string);
    m = re.exec(text);
  }
  return out;
}

export const authorizedKeysFormat: RecordFormat<AuthorizedKey> = {
  parse(line) {
    if (/^\s*#/.test(line) || /^\s*$/.test(line)) return undefined;
    const m = KEYLINE.exec(line);
    if (!m) return undefined;
    return {
      options: m[1] ? parseKeyOptions(m[1]) : [],
      type: m[2] as string,
      key: m[3] as string,
      name: m[4] ?? "",
    };
  },
  render(k) {
    // Options only when there are some; the name always (a key without one keeps a trailing space, as Puppet writes it).
    const fields = [k.options.join(","), k.type, k.key, k.name].filter((f, i) => i > 0 || f !== "");
    return fields.join(" ");
  },
};
