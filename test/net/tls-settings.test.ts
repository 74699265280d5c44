/**
 * allowtlsversion/allowciphers (and the client's tls_min_version/tls_ciphers)
 * read as 3.21's TLSSetDefaultOptions and TLSSetCipherList read them: the
 * versions and messages, the cipher list split at TLS 1.3, the errors.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { minimumTlsVersion, tlsSettings } from "../../src/net/tls-settings.js";

const lines = (messages: readonly { level: string; text: string }[]): string[] =>
  messages.map((m) => `${m.level}: ${m.text}`);

test("minimum TLS version: 3.21's strings exactly, 1.1 by default, anything else is 1.0 with a warning", () => {
  assert.deepEqual(minimumTlsVersion(undefined), {
    version: "1.1",
    messages: [{ level: "verbose", text: "Setting minimum acceptable TLS version: 1.1" }],
  });
  assert.equal(minimumTlsVersion("1.3").version, "1.3");
  assert.deepEqual(lines(minimumTlsVersion("1.0").messages), [
    "warning: Minimum requested TLS version is 1.0, but minimum version recommended by CFEngine is 1.1.",
    "verbose: Setting minimum acceptable TLS version: 1.0",
  ]);
  for (const odd of ["TLSv1.2", "1.4", "1.2 ", "bogus"]) {
    const read = minimumTlsVersion(odd);
    assert.equal(read.version, "1.0", odd);
    assert.equal(
      read.messages[0]?.text,
      `Unrecognized requested minimum TLS version '${odd}', using the minimum required version 1.0.`,
    );
  }
});

test("cipher lists: split at TLS 1.3, TLS 1.3 off without a suite, OpenSSL's default kept without older ciphers", () => {
  const server = tlsSettings(undefined, "AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384");
  assert.deepEqual(server.options, {
    minVersion: "TLSv1.1",
    ciphers: "AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384",
  });
  assert.deepEqual(lines(server.messages), [
    "verbose: Setting minimum acceptable TLS version: 1.1",
    "verbose: Setting cipher list for TLS connections to: AES256-GCM-SHA384:AES256-SHA:TLS_AES_256_GCM_SHA384",
    "verbose: Enabling ciphers 'AES256-GCM-SHA384:AES256-SHA' for TLS 1.2 and older",
    "verbose: Enabling cipher suites 'TLS_AES_256_GCM_SHA384' for TLS 1.3 and newer",
  ]);
  const no13 = tlsSettings("1.2", "AES256-GCM-SHA384");
  assert.deepEqual(no13.options, {
    minVersion: "TLSv1.2",
    maxVersion: "TLSv1.2",
    ciphers: "AES256-GCM-SHA384",
  });
  assert.equal(
    no13.messages.at(-1)?.text,
    "Disabling TLS 1.3 because no TLS 1.3 ciphersuites specified in allowed ciphers: 'AES256-GCM-SHA384'",
  );
  const only13 = tlsSettings(undefined, "TLS_AES_256_GCM_SHA384");
  assert.deepEqual(only13.options, { minVersion: "TLSv1.1", ciphers: "DEFAULT:TLS_AES_256_GCM_SHA384" });
  const client = tlsSettings(undefined, undefined);
  assert.deepEqual(client.options, { minVersion: "TLSv1.1" });
  assert.equal(client.messages.at(-1)?.text, "Using the OpenSSL's default cipher list");
});

test("cipher lists OpenSSL matches nothing in: 3.21's errors", () => {
  assert.equal(tlsSettings(undefined, "NO-SUCH").error, "No valid ciphers in the cipher list: NO-SUCH");
  assert.equal(
    tlsSettings(undefined, "AES256-SHA:TLS_NO_SUCH").error,
    "No valid cipher suites in the list: AES256-SHA:TLS_NO_SUCH",
  );
});

test("a minimum below TLS 1.2 asked for: an info line that OpenSSL 3 needs @SECLEVEL=0 for it", (t) => {
  if (Number.parseInt(process.versions.openssl ?? "0", 10) < 3) return t.skip("OpenSSL before 3");
  const notice = (s: ReturnType<typeof tlsSettings>) => s.messages.find((m) => m.level === "info")?.text;
  assert.match(notice(tlsSettings("1.1", "AES256-SHA:TLS_AES_256_GCM_SHA384")) ?? "", /@SECLEVEL=0/);
  assert.equal(notice(tlsSettings("1.1", "AES256-SHA:@SECLEVEL=0:TLS_AES_256_GCM_SHA384")), undefined);
  assert.equal(notice(tlsSettings(undefined, "AES256-SHA")), undefined);
  assert.equal(notice(tlsSettings("1.2", "AES256-SHA")), undefined);
});
