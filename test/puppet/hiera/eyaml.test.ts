/**
 * Hiera eyaml (`eyaml_lookup_key`) inside a compile: automatic class
 * parameters decrypted from `ENC[PKCS7,...]` values, Sensitive where
 * lookup_options convert them, against the catalog Puppet 7.23 compiled
 * for the same code and data (test/fixtures/puppet-hiera/catalogs-eyaml,
 * recorded with compile_many.rb and hiera-eyaml 3.3.0); a value that
 * cannot be decrypted fails the compile with Puppet's message plus where
 * the value is in the data file. The lookups themselves are replayed in
 * oracle.test.ts (setups eyaml-*). Plus the PKCS#7 reader on its own.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { compileErrorText, compileNodeCatalog } from "../../../src/puppet/env/compile.js";
import { PuppetCompileError } from "../../../src/puppet/eval/compile-api.js";
import {
  decryptEnveloped,
  Pkcs7Error,
  readCertificate,
  readPrivateKey,
} from "../../../src/puppet/hiera/pkcs7.js";
import { resolveCompileSettings } from "../../../src/puppet/settings.js";
import { fixtureDir } from "./oracle.js";

interface Resource {
  type: string;
  title: string;
  parameters?: Record<string, unknown>;
  sensitive_parameters?: string[];
}

const keys = join(fixtureDir, "code/environments/eyaml/keys");

function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), "tend-eyaml-"));
  mkdirSync(join(root, "etc"));
  writeFileSync(
    join(root, "etc/puppet.conf"),
    `[main]\nvardir = ${root}/var\ncodedir = ${fixtureDir}/code\nhiera_config = ${fixtureDir}/global/hiera.yaml\nbasemodulepath = ${root}/none\n`,
  );
  mkdirSync(join(root, "var/server_data/facts"), { recursive: true });
  for (const node of ["node1.example.com", "web01.example.com"])
    writeFileSync(
      join(root, "var/server_data/facts", `${node}.json`),
      JSON.stringify({ name: node, values: { networking: { fqdn: node }, kernel: "Linux" } }),
    );
  return root;
}

function pick(resources: readonly Resource[]): Resource[] {
  return resources
    .filter((r) => r.type === "Notify" || (r.type === "Class" && r.title !== "Settings"))
    .map((r) => ({
      type: r.type,
      title: r.title,
      parameters: r.parameters,
      sensitive_parameters: r.sensitive_parameters,
    }));
}

const root = scratch();
test.after(() => rmSync(root, { recursive: true, force: true }));

async function compile(node: string) {
  const settings = resolveCompileSettings(
    { confdir: join(root, "etc"), environment: "eyaml", facts_terminus: "json" },
    root,
  );
  return compileNodeCatalog({ node, settings, factsDir: join(root, "var/server_data") });
}

test("class parameters decrypted from eyaml data, as Puppet compiled them", async () => {
  const compiled = await compile("node1.example.com");
  const puppet = JSON.parse(
    readFileSync(join(fixtureDir, "catalogs-eyaml/node1.example.com.json"), "utf8").replaceAll(
      "@FIXTURE@",
      fixtureDir,
    ),
  ) as { resources: Resource[] };
  const ours = JSON.parse(JSON.stringify(compiled.result.catalog)) as { resources: Resource[] };
  assert.deepEqual(pick(ours.resources), pick(puppet.resources));
});

test("a value that cannot be decrypted fails the compile: Puppet's message and where the value is", async () => {
  const want = readFileSync(join(fixtureDir, "catalogs-eyaml/web01.example.com.error"), "utf8").replaceAll(
    "@FIXTURE@",
    fixtureDir,
  );
  let text = "";
  try {
    await compile("web01.example.com");
  } catch (error) {
    assert.ok(error instanceof PuppetCompileError, String(error));
    text = compileErrorText(error, "web01.example.com");
  }
  const file = join(fixtureDir, "code/environments/eyaml/data/broken.eyaml");
  assert.equal(
    text,
    want.replace(
      " on node web01.example.com",
      ` (file: ${file}, line: 2, column: 17) on node web01.example.com`,
    ),
  );
});

/** Enveloped data for the fixture's key, made by Ruby's OpenSSL (AES-128-CBC): "hello128". */
const AES128 = readFileSync(join(fixtureDir, "code/environments/eyaml/data/common.eyaml"), "utf8").match(
  /^eyaml::aes128: ENC\[PKCS7,([^\]]+)\]/m,
)?.[1] as string;

test("PKCS#7: decrypts, and fails as Ruby's OpenSSL words it", () => {
  const key = readPrivateKey(readFileSync(join(keys, "private_key.pkcs7.pem")));
  const cert = readCertificate(readFileSync(join(keys, "public_key.pkcs7.pem")));
  const otherKey = readPrivateKey(readFileSync(join(keys, "other/private_key.pkcs7.pem")));
  const otherCert = readCertificate(readFileSync(join(keys, "other/public_key.pkcs7.pem")));
  const der = Buffer.from(AES128, "base64");
  assert.equal(decryptEnveloped(der, key, cert).toString(), "hello128");
  // Trailing bytes after the structure are ignored, as OpenSSL ignores them.
  assert.equal(decryptEnveloped(Buffer.concat([der, Buffer.from("xx")]), key, cert).toString(), "hello128");
  const fails = (f: () => unknown, message: string) =>
    assert.throws(f, (e: unknown) => e instanceof Pkcs7Error && e.message === message);
  fails(() => decryptEnveloped(der, key, otherCert), "private key does not match certificate");
  // The other key pair has the same issuer and serial (hiera-eyaml's createkeys): its key cannot open it.
  fails(() => decryptEnveloped(der, otherKey, otherCert), "bad decrypt");
  fails(() => decryptEnveloped(der.subarray(0, 100), key, cert), "Could not parse the PKCS7: no start line");
  fails(() => decryptEnveloped(Buffer.from("hello"), key, cert), "Could not parse the PKCS7: no start line");
  // A flipped byte in the last cipher block breaks the padding.
  const broken = Buffer.from(der);
  broken[broken.length - 1] ^= 0xff;
  fails(() => decryptEnveloped(broken, key, cert), "bad decrypt");
  fails(() => readPrivateKey("junk"), "Neither PUB key nor PRIV key: unsupported");
  fails(() => readCertificate("junk"), "PEM_read_bio_X509: no start line");
});
