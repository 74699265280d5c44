/**
 * Host keys as cf-key 3.21 keeps them, and the peers' keys a host trusts.
 *
 * - `ppkeys/localhost.priv`: the RSA private key, PKCS#1 PEM ("RSA PRIVATE
 *   KEY"), unencrypted, mode 0600; `ppkeys/localhost.pub`: the public key,
 *   PKCS#1 PEM ("RSA PUBLIC KEY"), 0600; ppkeys/ itself 0700. 3.21 reads
 *   private keys with the legacy passphrase "Cfengine passphrase", so keys
 *   written encrypted with it by old versions still load here too.
 * - A host's identity is "MD5=" + the hex MD5 of the modulus and then the
 *   exponent, each as unsigned big-endian bytes with no leading zero (what
 *   `cf-key -p` prints; community 3.21 uses MD5).
 * - A trusted peer's key is `ppkeys/<user>-MD5=<hex>.pub` (PKCS#1 PEM, 0600);
 *   3.21 still finds the old name `<user>-<ip>.pub` and renames it to the new
 *   one once the digest is known.
 *
 * Everything is written through a temporary file and a rename.
 */
import {
  createHash,
  createPublicKey,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { chmodSync, lstatSync, readdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomically } from "../system/atomic.js";
import { makeDirectoriesSync } from "../system/make-directories.js";
import { noteLastSeen } from "./lastseen.js";

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** The passphrase CFEngine has always given OpenSSL when reading a private key. */
export const LEGACY_PASSPHRASE = "Cfengine passphrase";

export const PRIVATE_KEY_FILE = "localhost.priv";
export const PUBLIC_KEY_FILE = "localhost.pub";

/**
 * A new RSA-2048 pair, public exponent 65537, as `cf-key` makes.
 *
 * The pair is generated as PEM text and read back into key objects of its
 * own: on Node 20, a key object that still shares its data with the
 * generation job can deadlock the process when it is exported (`jwk`, as
 * keyDigest does) while garbage collection destroys that job (both take
 * the key data's lock; seen as a test hanging in a futex).
 */
export function generateKeyPair(bits = 2048): KeyPair {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: bits,
    publicExponent: 65537,
    publicKeyEncoding: { type: "pkcs1", format: "pem" },
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
  });
  const key = createPrivateKey(privateKey);
  return { privateKey: key, publicKey: createPublicKey(key) };
}

/** The private key as cf-key writes it: PKCS#1 PEM, unencrypted. */
export function privateKeyPem(pair: KeyPair): string {
  return pair.privateKey.export({ type: "pkcs1", format: "pem" }) as string;
}

/** A public key as cf-key and 3.21's trust store write it: PKCS#1 PEM. */
export function publicKeyPem(publicKey: KeyObject): string {
  return publicKey.export({ type: "pkcs1", format: "pem" }) as string;
}

/** Parses a private key PEM (PKCS#1, PKCS#8, or encrypted with the legacy passphrase). Throws on bad input. */
export function parsePrivateKey(pem: string | Buffer): KeyObject {
  const key = createPrivateKey({ key: pem, format: "pem", passphrase: LEGACY_PASSPHRASE });
  if (key.asymmetricKeyType !== "rsa") throw new Error(`not an RSA key (${key.asymmetricKeyType})`);
  return key;
}

/**
 * Parses a public key PEM: PKCS#1 ("RSA PUBLIC KEY", what 3.21 reads and
 * writes) or SubjectPublicKeyInfo ("PUBLIC KEY"). Throws on anything else,
 * including an exponent 3.21 refuses (even or below 2 bits).
 */
export function parsePublicKey(pem: string | Buffer): KeyObject {
  const text = pem.toString();
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) throw new Error("no start line");
  const key = createPublicKey({ key: text, format: "pem" });
  if (key.asymmetricKeyType !== "rsa") throw new Error(`not an RSA key (${key.asymmetricKeyType})`);
  const { e } = rsaComponents(key);
  if (e.length === 0 || (e.length === 1 && (e[0] as number) < 2) || ((e.at(-1) as number) & 1) === 0)
    throw new Error("RSA exponent too small or not odd");
  return key;
}

/** The modulus and exponent as unsigned big-endian bytes, without leading zeros (BN_bn2bin). */
export function rsaComponents(publicKey: KeyObject): { n: Buffer; e: Buffer } {
  const jwk = publicKey.export({ format: "jwk" });
  if (typeof jwk.n !== "string" || typeof jwk.e !== "string") throw new Error("not an RSA key");
  const strip = (b: Buffer): Buffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    return b.subarray(i);
  };
  return { n: strip(Buffer.from(jwk.n, "base64url")), e: strip(Buffer.from(jwk.e, "base64url")) };
}

/** The key's identity as 3.21 community prints it: "MD5=" + md5(n || e) in hex. */
export function keyDigest(publicKey: KeyObject): string {
  const key = publicKey.type === "private" ? createPublicKey(publicKey) : publicKey;
  const { n, e } = rsaComponents(key);
  return `MD5=${createHash("md5").update(n).update(e).digest("hex")}`;
}

/** Whether two keys are the same RSA public key. */
export function sameKey(a: KeyObject, b: KeyObject): boolean {
  const x = rsaComponents(a.type === "private" ? createPublicKey(a) : a);
  const y = rsaComponents(b.type === "private" ? createPublicKey(b) : b);
  return x.n.equals(y.n) && x.e.equals(y.e);
}

/**
 * The host's pair from `ppkeys`, or undefined when either file is missing.
 * A file that is there but unreadable as a key throws (with the file named).
 */
export function readKeyPair(ppkeys: string): KeyPair | undefined {
  const privPath = join(ppkeys, PRIVATE_KEY_FILE);
  const pubPath = join(ppkeys, PUBLIC_KEY_FILE);
  const priv = readIfThere(privPath);
  const pub = readIfThere(pubPath);
  if (priv === undefined || pub === undefined) return undefined;
  let privateKey: KeyObject;
  try {
    privateKey = parsePrivateKey(priv);
  } catch (error) {
    throw new Error(`Error reading private key '${privPath}': ${(error as Error).message}`);
  }
  let publicKey: KeyObject;
  try {
    publicKey = parsePublicKey(pub);
  } catch (error) {
    throw new Error(`Error reading public key '${pubPath}': ${(error as Error).message}`);
  }
  return { privateKey, publicKey };
}

/**
 * Creates `ppkeys` 0700 when missing (an existing one is made 0700 as
 * well); missing directories above it are made 0755, as a work directory.
 */
export function ensureKeyDirectory(ppkeys: string): void {
  makeDirectoriesSync(dirname(ppkeys), 0o755);
  makeDirectoriesSync(ppkeys, 0o700);
  const st = lstatSync(ppkeys);
  if (st.isDirectory() && (st.mode & 0o777) !== 0o700) chmodSync(ppkeys, 0o700);
}

/** Writes localhost.priv and localhost.pub (0600 each, ppkeys/ 0700), each atomically. */
export function writeKeyPair(ppkeys: string, pair: KeyPair, names?: { priv: string; pub: string }): void {
  ensureKeyDirectory(ppkeys);
  writeFileAtomically(join(ppkeys, names?.priv ?? PRIVATE_KEY_FILE), privateKeyPem(pair), 0o600);
  writeFileAtomically(join(ppkeys, names?.pub ?? PUBLIC_KEY_FILE), publicKeyPem(pair.publicKey), 0o600);
}

/** Where a trusted peer key lives: `<ppkeys>/<user>-<digest>.pub`. */
export function trustedKeyFile(ppkeys: string, user: string, digest: string): string {
  return join(ppkeys, `${user}-${digest}.pub`);
}

/**
 * The trusted key of `user` with `digest`, or undefined. As 3.21 does, when
 * the new name is missing and `ip` is given, the old name `<user>-<ip>.pub`
 * is used and renamed to the new one. A file holding some other key than
 * `digest` names is not trusted (undefined).
 */
export function readTrustedKey(
  ppkeys: string,
  user: string,
  digest: string,
  ip?: string,
): KeyObject | undefined {
  const file = trustedKeyFile(ppkeys, user, digest);
  let text = readIfThere(file);
  if (text === undefined && ip !== undefined) {
    const old = join(ppkeys, `${user}-${ip}.pub`);
    text = readIfThere(old);
    if (text !== undefined && digest !== "") {
      try {
        renameSync(old, file);
      } catch {
        // As 3.21: the key is still used under its old name.
      }
    }
  }
  if (text === undefined) return undefined;
  try {
    const key = parsePublicKey(text);
    return digest === "" || keyDigest(key) === digest ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `publicKey` is the key trusted for `user` (stored under its digest). */
export function isTrusted(ppkeys: string, user: string, publicKey: KeyObject, ip?: string): boolean {
  const stored = readTrustedKey(ppkeys, user, keyDigest(publicKey), ip);
  return stored !== undefined && sameKey(stored, publicKey);
}

/**
 * Trusts `publicKey` for `user`: writes `<user>-<digest>.pub` (0600) unless
 * it is there already (3.21 does not rewrite it). Returns the file.
 */
export function trustKey(ppkeys: string, user: string, publicKey: KeyObject): string {
  const file = trustedKeyFile(ppkeys, user, keyDigest(publicKey));
  if (lstatSync(file, { throwIfNoEntry: false }) !== undefined) return file;
  ensureKeyDirectory(ppkeys);
  writeFileAtomically(file, publicKeyPem(publicKey), 0o600);
  return file;
}

export interface TrustedKeyEntry {
  readonly file: string;
  readonly user: string;
  /** "MD5=…"/"SHA=…" for new-style names; the IP address for old-style ones. */
  readonly id: string;
}

/** The trusted keys in `ppkeys` (not the host's own pair), sorted by file name. */
export function listTrustedKeys(ppkeys: string): TrustedKeyEntry[] {
  let names: string[];
  try {
    names = readdirSync(ppkeys);
  } catch {
    return [];
  }
  const out: TrustedKeyEntry[] = [];
  for (const name of names.sort()) {
    if (!name.endsWith(".pub") || name === PUBLIC_KEY_FILE) continue;
    const base = name.slice(0, -4);
    const match = /^(.*?)-((?:MD5|SHA)=[0-9a-f]+)$/.exec(base) ?? /^(.*)-([^-]+)$/.exec(base);
    if (match) out.push({ file: join(ppkeys, name), user: match[1] as string, id: match[2] as string });
  }
  return out;
}

/**
 * Removes the trusted key files of `id` (a digest or an old-style address):
 * every `ppkeys/*-<id>.pub`, as 3.21's RemovePublicKey. Returns how many
 * went, or the file that could not be removed and why.
 */
export function removeTrustedKeyFiles(
  ppkeys: string,
  id: string,
): { readonly removed: number } | { readonly failed: string; readonly error: NodeJS.ErrnoException } {
  if (id === "") return { removed: 0 };
  let names: string[];
  try {
    names = readdirSync(ppkeys);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { removed: 0 };
    return { failed: ppkeys, error: error as NodeJS.ErrnoException };
  }
  const suffix = `-${id}.pub`;
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(suffix)) continue;
    try {
      unlinkSync(join(ppkeys, name));
      removed++;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        return { failed: name, error: error as NodeJS.ErrnoException };
    }
  }
  return { removed };
}

/**
 * On a policy hub, the hub's own key as its clients' trusted key of it
 * (3.21's PolicyHubUpdateKeys, run as each agent starts): when
 * `ppkeys/root-<digest>.pub` is missing, the host's public key is copied
 * there, and the policy server is recorded as an outgoing peer with that
 * key in the lastseen database. Returns the file written, or undefined
 * when there was nothing to do; a copy that fails is logged.
 */
export function policyHubUpdateKeys(
  ppkeys: string,
  statedir: string,
  policyServer: string | undefined,
  log: { error(message: string): void },
): string | undefined {
  const source = join(ppkeys, PUBLIC_KEY_FILE);
  let pair: KeyPair | undefined;
  try {
    pair = readKeyPair(ppkeys);
  } catch {
    return undefined;
  }
  if (!pair) return undefined;
  const digest = keyDigest(pair.publicKey);
  const target = trustedKeyFile(ppkeys, "root", digest);
  if (lstatSync(target, { throwIfNoEntry: false }) !== undefined) return undefined;
  try {
    writeFileAtomically(target, readFileSync(source), 0o600);
  } catch {
    log.error(`Unable to copy policy server's own public key from '${source}' to '${target}'`);
  }
  if (policyServer)
    noteLastSeen(statedir, "outgoing", digest, policyServer, (error) =>
      log.error(`Unable to update the lastseen database (${(error as Error).message})`),
    );
  return target;
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
