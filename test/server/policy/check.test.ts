/**
 * What `tend check` says of server bundles and `body server control`,
 * verdict by verdict the same as `cf-promises -c` 3.21 (run here too when
 * installed; the expected verdicts were measured with it).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkPolicy } from "../../../src/check/check.js";
import { cfengineTool, runInHost, scratchHost, skipReason } from "../../net/hosts.js";

const HEAD = 'body common control { bundlesequence => { "main" }; }\nbundle agent main {}\n';

/** [what, policy text after HEAD, valid for cf-promises -c 3.21] */
const CASES: readonly [string, string, boolean][] = [
  [
    "every server control attribute",
    `body server control {
    port => "5308"; bindtointerface => "127.0.0.1"; allowconnects => { "127.0.0.1" };
    denyconnects => { "10.0.0.1" }; allowallconnects => { "127.0.0.1" }; trustkeysfrom => { "127.0.0.1" };
    allowusers => { "root" }; maxconnections => "50"; allowciphers => "AES256-GCM-SHA384";
    allowtlsversion => "1.2"; allowlegacyconnects => { "127.0.0.1" }; cfruncommand => "/bin/true";
    denybadclocks => "false"; logallconnections => "true"; logencryptedtransfers => "true";
    listen => "true"; hostnamekeys => "false"; auditing => "false"; call_collect_interval => "5";
    collect_window => "10"; dynamicaddresses => { "x" }; serverfacility => "LOG_LOCAL0"; }`,
    true,
  ],
  [
    "removed and deprecated attributes warn only",
    'body server control { keycacheTTL => "5"; skipverify => { "x" }; }',
    true,
  ],
  ["port out of range", 'body server control { port => "70000"; }', false],
  ["port not a number", 'body server control { port => "abc"; }', false],
  ["negative maxconnections", 'body server control { maxconnections => "-1"; }', false],
  ["a bad boolean", 'body server control { denybadclocks => "maybe"; }', false],
  ["a scalar for a list", 'body server control { allowconnects => "127.0.0.1"; }', false],
  ["an unknown attribute", 'body server control { bogus => "x"; }', false],
  ["an unknown facility", 'body server control { serverfacility => "LOG_FOO"; }', false],
  [
    "access promises of every kind",
    `bundle server s {
  vars: "ips" slist => { "127.0.0.1" };
  classes: "c" expression => "any";
  access:
    c::
      "/tmp" admit_ips => { @(ips) }, deny_ips => { "10.0.0.1" }, admit_hostnames => { ".example.com" },
        deny_hostnames => { "bad.example.com" }, admit_keys => { "MD5=00" }, deny_keys => { "SHA=00" },
        admit => { "127.0.0.1" }, deny => { "10.0.0.2" }, maproot => { "127.0.0.1" },
        ifencrypted => "true", shortcut => "tmp";
      "lit" handle => "h", resource_type => "literal", admit_ips => { "127.0.0.1" };
      "linux" resource_type => "context", admit_ips => { "127.0.0.1" };
      "v" resource_type => "variable", admit_ips => { "127.0.0.1" };
      "b.*" resource_type => "bundle", admit_keys => { "MD5=00" };
      "delta" resource_type => "query", admit_ips => { "127.0.0.1" }, report_data_select => rds;
  roles:
      ".*" authorize => { "root" };
}
body report_data_select rds { metatags_include => { "x" }; promise_handle_exclude => { "y" }; }`,
    true,
  ],
  [
    "defaults and reports are allowed in a server bundle",
    'bundle server s { defaults: "x" string => "y"; reports: "r"; }',
    true,
  ],
  ["a server bundle with parameters", 'bundle server s(x) { access: "/tmp" admit => { "$(x)" }; }', true],
  ["a scalar for admit_ips", 'bundle server s { access: "/tmp" admit_ips => "127.0.0.1"; }', false],
  ["an unknown resource_type", 'bundle server s { access: "/tmp" resource_type => "nope"; }', false],
  ["a bad ifencrypted", 'bundle server s { access: "/tmp" ifencrypted => "maybe"; }', false],
  ["an unknown access attribute", 'bundle server s { access: "/tmp" bogus_attr => "1"; }', false],
  [
    "report_data_select outside query",
    `bundle server s { access: "/tmp" admit => { "x" }, report_data_select => rds; }
body report_data_select rds { metatags_include => { "x" }; }`,
    false,
  ],
  ["a scalar for authorize", 'bundle server s { roles: ".*" authorize => "root"; }', false],
  [
    "an unknown roles attribute",
    'bundle server s { roles: ".*" authorize => { "root" }, bad => "x"; }',
    false,
  ],
  ["files in a server bundle", 'bundle server s { files: "/tmp/x" create => "true"; }', false],
  ["commands in a server bundle", 'bundle server s { commands: "/bin/true"; }', false],
  ["access in an agent bundle", 'bundle agent a { access: "/tmp" admit => { "x" }; }', false],
  [
    "access and roles in a common bundle",
    'bundle common a { access: "/tmp" admit => { "x" }; roles: "x" authorize => { "r" }; }',
    false,
  ],
  [
    "an unknown report_data_select attribute",
    `bundle server s { access: "/tmp" resource_type => "query", report_data_select => rds; }
body report_data_select rds { bogus => "z"; }`,
    false,
  ],
];

test("tend check judges server bundles and server control as cf-promises -c 3.21", (t) => {
  const host = scratchHost("tend-srvpolicy-check-");
  const reference = skipReason("cf-promises") === undefined;
  if (!reference) t.diagnostic("cf-promises is not runnable here: the measured verdicts only");
  const wrong: string[] = [];
  for (const [what, text, valid] of CASES) {
    const file = join(host.inputs, "t.cf");
    writeFileSync(file, `${HEAD}${text}\n`, { mode: 0o600 });
    const tend = checkPolicy({ entry: file, workDir: host.dir, inputDir: host.inputs });
    if (tend.valid !== valid) wrong.push(`${what}: tend check says ${tend.valid ? "valid" : "invalid"}`);
    if (reference) {
      const run = runInHost(host.dir, [
        cfengineTool("cf-promises") ?? "cf-promises",
        "-c",
        "-f",
        "/var/lib/cfengine3/inputs/t.cf",
      ]);
      if ((run.status === 0) !== valid) wrong.push(`${what}: cf-promises exits ${run.status}`);
    }
  }
  assert.deepEqual(wrong, []);
});
