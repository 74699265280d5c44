import assert from "node:assert/strict";
import { test } from "node:test";
import { renderErb, TemplateError, type TemplateScope } from "../../../src/puppet/erb/index.js";
import { DEFAULT, PHash, type PValue } from "../../../src/puppet/eval/values.js";

function scope(vars: Record<string, PValue>, calls: [string, readonly PValue[]][] = []): TemplateScope {
  return {
    lookupVariable: (n) => vars[n],
    hasVariable: (n) => Object.hasOwn(vars, n),
    callFunction: (name, args) => {
      calls.push([name, args]);
      return `called ${name}`;
    },
  };
}

function fails(source: string, line: number, pattern: RegExp): void {
  assert.throws(
    () => renderErb(source, "/m/templates/t.erb", scope({})),
    (e: unknown) =>
      e instanceof TemplateError &&
      e.file === "/m/templates/t.erb" &&
      e.line === line &&
      pattern.test(e.message),
  );
}

test("errors name the template and the line", () => {
  fails("a\nb\n<%= @x.upcase %>", 3, /undefined method `upcase' for nil:NilClass/);
  fails("<% if true %>\nno end", 2, /syntax error/);
  fails("x\n<%= `id` %>", 2, /backticks/);
  fails("<%\n\n def f; end %>", 3, /'def' is not in the ERB subset/);
  fails("<%= 'a'.frobnicate %>", 1, /undefined method `frobnicate' .*not in tend's ERB subset/);
  fails("<%= classes %>", 1, /not supported/);
  fails("<% raise 'boom' %>", 1, /^boom$/);
  fails("<%= 'x", 1, /unterminated/);
});

test("scope: variables, qualified names, functions", () => {
  const calls: [string, readonly PValue[]][] = [];
  const vars: Record<string, PValue> = {
    "::top": "T",
    "a::b": 1n,
    h: PHash.fromRecord({ k: 2.5 }),
    d: DEFAULT,
  };
  const out = renderErb(
    "<%= scope['::top'] %>|<%= scope.lookupvar('a::b') + 1 %>|<%= @h['k'] %>|<%= @d.inspect %>|" +
      "<%= scope.call_function('f', [1, 'x', nil]) %>|<%= scope.function_g(['y']) %>|<%= scope.call_function('h', {'a' => 1}) %>",
    "t.erb",
    scope(vars, calls),
  );
  assert.equal(out, "T|2|2.5|:default|called f|called g|called h");
  assert.deepEqual(calls, [
    ["f", [1n, "x", undefined]],
    ["g", ["y"]],
    ["h", [["a", 1n]]],
  ]);
});

test("`::x` falls back to x when the scope does not know `::x`", () => {
  assert.equal(renderErb("<%= scope['::x'] %>", "t", scope({ x: "top" })), "top");
});

test("function errors pass through unchanged", () => {
  const s: TemplateScope = {
    lookupVariable: () => undefined,
    hasVariable: () => false,
    callFunction: () => {
      throw new RangeError("from the function");
    },
  };
  assert.throws(() => renderErb("<%= scope.call_function('x', []) %>", "t", s), RangeError);
});
