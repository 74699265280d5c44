/**
 * Runs the edit_xml cases through an agent twice, in a fresh temporary
 * directory, and collects what each run logged per case and the files it
 * left. Both agents write their log and report lines to stdout, in order;
 * that is what is kept.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  type RecordedRun,
  type Recording,
  type XmlCase,
  XML_CASES,
  casesPolicy,
  splitLogs,
} from "./cases.js";

export type AgentKind = "cf-agent" | "tend";

const TEND = resolve("bin/tend.js");

function command(kind: AgentKind, root: string): { program: string; args: string[]; env: NodeJS.ProcessEnv } {
  const workdir = join(root, `wd-${kind}`);
  if (kind === "tend") {
    return {
      program: process.execPath,
      args: [TEND, "agent"],
      env: { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir },
    };
  }
  mkdirSync(join(workdir, "bin"), { recursive: true });
  if (!existsSync(join(workdir, "bin", "cf-promises")))
    symlinkSync("/usr/bin/cf-promises", join(workdir, "bin", "cf-promises"));
  const env = { ...process.env, CFENGINE_TEST_OVERRIDE_WORKDIR: workdir };
  spawnSync("cf-key", [], { env });
  return { program: "/usr/bin/cf-agent", args: [], env };
}

/** A file's bytes as text: UTF-8 when they are, otherwise base64 (marked). */
function fileText(path: string): string {
  const bytes = readFileSync(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return `base64:${bytes.toString("base64")}`;
  }
}

function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) files[name] = fileText(join(dir, name));
  return files;
}

function runOnce(kind: AgentKind, root: string, dir: string, policy: string): RecordedRun {
  const { program, args, env } = command(kind, root);
  const log = join(root, `${kind}.log`);
  const fd = openSync(log, "w");
  try {
    spawnSync(program, [...args, "-KI", "-f", policy], {
      env,
      stdio: ["ignore", fd, "ignore"],
    });
  } finally {
    closeSync(fd);
  }
  return { logs: splitLogs(readFileSync(log, "utf8"), dir), files: snapshot(dir) };
}

/** Runs the cases through `kind` twice; the temporary directory is removed afterwards. */
export function runCases(kind: AgentKind, cases: readonly XmlCase[] = XML_CASES): Recording {
  const root = mkdtempSync(join(tmpdir(), "tend-xml-"));
  try {
    const dir = join(root, "d");
    mkdirSync(dir);
    for (const c of cases) if (c.input !== undefined) writeFileSync(join(dir, `${c.name}.xml`), c.input);
    const policy = join(root, "policy.cf");
    writeFileSync(policy, casesPolicy(dir, cases));
    const first = runOnce(kind, root, dir, policy);
    const second = runOnce(kind, root, dir, policy);
    return { agent: kind, first, second };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
