import { test } from "node:test";
import { checkCase, familyCases } from "./data-fixture.js";

for (const c of familyCases("collections")) test(`${c.expr} (as cf-agent)`, (t) => checkCase(c, t));
