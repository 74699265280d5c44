/**
 * Records what cf-agent 3.21 does with the edit_xml cases of
 * test/promises/xml/cases.ts into test/fixtures/xml-edits/recorded.json,
 * which test/promises/xml/differential.test.ts replays against tend.
 *
 *   npx tsc -p . && node dist/scripts/record-xml-edits.js
 *
 * cf-agent must be installed (/usr/bin/cf-agent); it runs in a private
 * work directory under a temporary directory.
 */
import { writeFileSync } from "node:fs";
import { runCases } from "../test/promises/xml/run-cases.js";

const recording = runCases("cf-agent");
const out = "test/fixtures/xml-edits/recorded.json";
writeFileSync(out, `${JSON.stringify({ ...recording, agent: "cf-agent 3.21.0" }, null, 1)}\n`);
process.stdout.write(`recorded ${Object.keys(recording.first.logs).length} cases into ${out}\n`);
