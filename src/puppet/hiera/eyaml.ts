/**
 * Hiera's `eyaml_lookup_key` (Puppet's function over the hiera-eyaml
 * library): a YAML file whose strings may hold `ENC[PKCS7,<base64>]`
 * blocks, each decrypted with the hierarchy level's keys (options
 * `pkcs7_private_key` and `pkcs7_public_key`, or `..._env_var` naming an
 * environment variable holding the PEM). A string with an `ENC[...]` in it
 * is cut into tokens as hiera-eyaml's Hiera parser cuts it (whitespace in a
 * block is dropped, text around blocks kept), the decrypted text chomped,
 * then interpolated like any other Hiera value. Errors are Puppet's
 * ("hiera-eyaml backend error decrypting ... Error was ...") with the
 * place of the value in the data file added.
 */
import { readFileSync } from "node:fs";
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import { PHash, type PValue } from "../eval/values.js";
import type { KeyObject, X509Certificate } from "node:crypto";
import { HieraError } from "./errors.js";
import { decryptEnveloped, Pkcs7Error, readCertificate, readPrivateKey } from "./pkcs7.js";

/** What decrypting needs: the level's options, and a cache of keys read (per compile). */
export interface EyamlSettings {
  readonly options: PHash;
  readonly keys: Map<string, KeyObject | X509Certificate | Error>;
  /** The environment's variables (for the `*_env_var` options). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Puppet's test for a value worth parsing (`/.*ENC\[.*?\]/`, no line breaks inside). */
const ENCRYPTED = /ENC\[[^\n]*?\]/;
/** hiera-eyaml's Hiera token: an optional scheme, base64 with blanks and line breaks. */
const TOKEN = /ENC\[(\w+,)?([a-zA-Z0-9+/ =\n]+?)\]/g;

class EyamlFailure extends Error {
  constructor(
    message: string,
    /** Raised outside hiera-eyaml's rescue (Ruby's LoadError): not reworded by Puppet. */
    readonly bare = false,
  ) {
    super(message);
  }
}

/**
 * Decrypts the ENC blocks of a value found for `key` in `path` (strings in
 * arrays and hashes too); other values are returned as they are. `interpolate`
 * is applied to every string afterwards (and to hash keys), as Puppet does.
 */
export function decryptValue(
  value: PValue,
  key: string,
  path: string,
  settings: EyamlSettings,
  interpolate: (text: string) => PValue,
): PValue {
  if (typeof value === "string") return interpolate(decryptString(value, key, path, settings));
  if (Array.isArray(value)) return value.map((v) => decryptValue(v, key, path, settings, interpolate));
  if (value instanceof PHash) {
    const out = new PHash();
    for (const [k, v] of value)
      out.set(typeof k === "string" ? interpolate(k) : k, decryptValue(v, key, path, settings, interpolate));
    return out;
  }
  return value;
}

function decryptString(text: string, key: string, path: string, settings: EyamlSettings): string {
  if (!ENCRYPTED.test(text)) return text;
  let out = "";
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    out += text.slice(last, match.index);
    last = match.index + match[0].length;
    const scheme = match[1] === undefined ? "PKCS7" : match[1].slice(0, -1);
    const cipher = (match[2] ?? "").replace(/\s/g, "");
    try {
      out += decryptBlock(scheme, cipher, settings);
    } catch (error) {
      if (!(error instanceof EyamlFailure)) throw error;
      const message = error.bare
        ? error.message
        : `hiera-eyaml backend error decrypting ${text} when looking up ${key} in ${path}. Error was ${error.message}`;
      const at = positionOf(path, key, match[0]);
      const where = at ? ` (file: ${path}, line: ${at.line}, column: ${at.col})` : ` (file: ${path})`;
      throw new HieraError(`${message}${where}`, path, at?.line);
    }
  }
  out += text.slice(last);
  return chomp(out);
}

/** Ruby's String#chomp: one trailing line break (\n, \r\n or \r) removed. */
function chomp(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n") || text.endsWith("\r")) return text.slice(0, -1);
  return text;
}

function decryptBlock(scheme: string, cipher: string, settings: EyamlSettings): string {
  if (scheme.toLowerCase() !== "pkcs7")
    throw new EyamlFailure(
      `cannot load such file -- hiera/backend/eyaml/encryptors/${scheme.toLowerCase()}`,
      true,
    );
  const option = (name: string): string | undefined => {
    const v = settings.options.get(`pkcs7_${name}`);
    return v === undefined || v === null ? undefined : String(v);
  };
  const publicPath = option("public_key");
  const publicVar = option("public_key_env_var");
  const privatePath = option("private_key");
  const privateVar = option("private_key_env_var");
  if (publicPath === undefined && publicVar === undefined)
    throw new EyamlFailure("pkcs7_public_key is not defined");
  if (privatePath === undefined && privateVar === undefined)
    throw new EyamlFailure("pkcs7_private_key is not defined");
  const env = settings.env ?? process.env;
  const fromEnv = (name: string | undefined): string | undefined =>
    name === undefined ? undefined : env[name];
  const privateKey = cachedKey(settings, "private", fromEnv(privateVar), privatePath, (pem) =>
    readPrivateKey(pem),
  ) as KeyObject;
  const certificate = cachedKey(settings, "public", fromEnv(publicVar), publicPath, (pem) =>
    readCertificate(pem),
  ) as X509Certificate;
  try {
    return decryptEnveloped(Buffer.from(cipher, "base64"), privateKey, certificate).toString("utf8");
  } catch (error) {
    if (error instanceof Pkcs7Error) throw new EyamlFailure(error.message);
    throw error;
  }
}

/** A key read from the environment variable's text, else its file, once per compile. */
function cachedKey(
  settings: EyamlSettings,
  kind: "private" | "public",
  pem: string | undefined,
  path: string | undefined,
  parse: (pem: string | Buffer) => KeyObject | X509Certificate,
): KeyObject | X509Certificate {
  const cacheKey = pem !== undefined ? `${kind} env ${pem}` : `${kind} file ${path}`;
  let entry = settings.keys.get(cacheKey);
  if (entry === undefined) {
    try {
      entry = parse(pem ?? readKeyFile(path ?? ""));
    } catch (error) {
      if (!(error instanceof Pkcs7Error) && !(error instanceof EyamlFailure)) throw error;
      entry = new EyamlFailure(error.message);
    }
    settings.keys.set(cacheKey, entry);
  }
  if (entry instanceof Error) throw entry;
  return entry;
}

/** Reads a key file; a failure worded as Ruby's File.read words it. */
function readKeyFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const words: Record<string, string> = {
      ENOENT: "No such file or directory @ rb_sysopen",
      EACCES: "Permission denied @ rb_sysopen",
      EISDIR: "Is a directory @ io_fread",
      ENOTDIR: "Not a directory @ rb_sysopen",
    };
    throw new EyamlFailure(`${(code && words[code]) ?? (error as Error).message} - ${path}`);
  }
}

/**
 * Where the value of top-level `key` holding `token` is in the YAML file
 * (1-based line and column of the scalar), read again only for the message.
 */
function positionOf(path: string, key: string, token: string): { line: number; col: number } | undefined {
  try {
    const counter = new LineCounter();
    const doc = parseDocument(readFileSync(path, "utf8"), { lineCounter: counter, uniqueKeys: false });
    if (!isMap(doc.contents)) return undefined;
    const pair = doc.contents.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (!pair) return undefined;
    const wanted = token.replace(/\s/g, "");
    const found = findScalar(pair.value as Node | null, wanted) ?? (pair.value as Node | null);
    const offset = found?.range?.[0] ?? (pair.key as Node | null)?.range?.[0];
    return offset === undefined ? undefined : counter.linePos(offset);
  } catch {
    return undefined;
  }
}

function findScalar(node: Node | null, token: string): Node | undefined {
  if (!node) return undefined;
  if (isScalar(node))
    return typeof node.value === "string" && node.value.replace(/\s/g, "").includes(token) ? node : undefined;
  if (isSeq(node)) {
    for (const item of node.items) {
      const found = findScalar(item as Node, token);
      if (found) return found;
    }
  }
  if (isMap(node)) {
    for (const item of node.items) {
      const found = findScalar(item.value as Node | null, token);
      if (found) return found;
    }
  }
  return undefined;
}
