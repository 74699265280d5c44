/**
 * The template resource's language (src/recipes/template.ts): a mustache
 * subset without HTML escaping, whose missing variables are errors with
 * the template's line.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderTemplate, TemplateError } from "../../../src/recipes/template.js";

test("values, dotted names, sections over arrays and objects, inverted sections, comments", () => {
  const text = [
    "port {{port}} on {{host.name}}",
    "{{! a comment line leaves nothing }}",
    "{{#upstreams}}",
    "server {{.}};",
    "{{/upstreams}}",
    "{{#tls}}cert {{cert}}{{/tls}}",
    "{{^backups}}no backups{{/backups}}",
    "raw {{{html}}} {{&html}}",
    "",
  ].join("\n");
  const out = renderTemplate(text, {
    port: 80,
    host: { name: "web1" },
    upstreams: ["a:1", "b:2"],
    tls: { cert: "/etc/c.pem" },
    backups: [],
    html: "<b>&</b>",
  });
  assert.equal(
    out,
    "port 80 on web1\nserver a:1;\nserver b:2;\ncert /etc/c.pem\nno backups\nraw <b>&</b> <b>&</b>\n",
  );
});

test("a missing variable or an unclosed section is an error with the template's line", () => {
  assert.throws(
    () => renderTemplate("ok\nport {{prot}}\n", { port: 80 }),
    (error: unknown) =>
      error instanceof TemplateError && error.line === 2 && /no variable 'prot'/.test(error.message),
  );
  assert.throws(
    () => renderTemplate("{{#a}}\nx\n", { a: true }),
    (error: unknown) => error instanceof TemplateError && error.line === 1,
  );
});
