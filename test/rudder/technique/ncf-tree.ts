/**
 * An ncf tree for tests: $TEND_NCF when set (a directory holding
 * 10_ncf_internals, 20_cfe_basics, 30_generic_methods), otherwise the
 * `tree` folder of ncf's branch `branches/rudder/8.3` extracted from the
 * bare mirror into a temporary directory, once per test file, removed when
 * the process exits.
 * Undefined, with the reason, when neither is there.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

export const NCF_MIRROR = "/work/.mirror/Normation+ncf/repo";
export const NCF_BRANCH = "branches/rudder/8.3";

let extracted: { tree?: string; reason?: string } | undefined;

export function ncfTree(_t: TestContext): { tree?: string; reason?: string } {
  const fromEnv = process.env.TEND_NCF;
  if (fromEnv) {
    return existsSync(join(fromEnv, "30_generic_methods"))
      ? { tree: fromEnv }
      : { reason: `TEND_NCF=${fromEnv} has no 30_generic_methods` };
  }
  extracted ??= extract();
  return extracted;
}

function extract(): { tree?: string; reason?: string } {
  if (!existsSync(NCF_MIRROR))
    return { reason: `no ncf tree: set TEND_NCF or provide the mirror ${NCF_MIRROR}` };
  const dir = mkdtempSync(join(tmpdir(), "tend-ncf-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  const archive = spawnSync("git", ["--git-dir", NCF_MIRROR, "archive", NCF_BRANCH, "tree"], {
    maxBuffer: 256 * 1024 * 1024,
  });
  if (archive.status !== 0)
    return { reason: `git archive of ${NCF_BRANCH} failed: ${archive.stderr.toString().trim()}` };
  const untar = spawnSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  if (untar.status !== 0) return { reason: `tar failed: ${untar.stderr.toString().trim()}` };
  // The agents refuse inputs others may write; the archive's modes may be group-writable.
  spawnSync("chmod", ["-R", "go-w", dir]);
  return { tree: join(dir, "tree") };
}
