/**
 * Where a user's crontab is read from and written to: through crontab(1)
 * (`crontab -u USER -l`, `crontab -u USER -`) on the running system, or
 * the spool file under another root (`<root>/var/spool/cron/crontabs/USER`,
 * Debian's layout), written atomically with the owner and mode crontab(1)
 * gives it. Failures are thrown as CrontabStoreError with crontab's words.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomically } from "../../system/atomic.js";
import { readGroups, readPasswd } from "../users/accounts.js";

export class CrontabStoreError extends Error {}

export interface CrontabStore {
  /** The crontab's text; "" when the user has none. */
  read(user: string): string;
  write(user: string, text: string): void;
}

/** The store of the running system: crontab(1). */
export function commandStore(crontab = "crontab"): CrontabStore {
  return {
    read(user) {
      const run = spawnSync(crontab, ["-u", user, "-l"], { encoding: "utf8" });
      if (run.status === 0) return run.stdout;
      const said = `${run.stdout}${run.stderr}${run.error?.message ?? ""}`.trim();
      if (/no crontab for/.test(said)) return "";
      throw new CrontabStoreError(`Could not read crontab for ${user}: ${said}`);
    },
    write(user, text) {
      const run = spawnSync(crontab, ["-u", user, "-"], { input: text, encoding: "utf8" });
      if (run.status === 0) return;
      const said = `${run.stdout}${run.stderr}${run.error?.message ?? ""}`.trim();
      throw new CrontabStoreError(`Could not write crontab for ${user}: ${said}`);
    },
  };
}

/** The store of a root other than `/`: the spool files themselves. */
export function spoolStore(root: string): CrontabStore {
  const path = (user: string) => join(root, "var", "spool", "cron", "crontabs", user);
  return {
    read(user) {
      try {
        return readFileSync(path(user), "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
        throw new CrontabStoreError(`Could not read crontab for ${user}: ${String(error)}`);
      }
    },
    write(user, text) {
      const passwd = readPasswd(root);
      const account = passwd.ok ? passwd.entries.find((e) => e.name === user) : undefined;
      if (!account)
        throw new CrontabStoreError(`Cannot write the ${user} user's crontab: The user does not exist`);
      const groups = readGroups(root);
      const gid = (groups.ok ? groups.entries.find((g) => g.name === "crontab")?.gid : undefined) ?? 0;
      try {
        writeFileAtomically(path(user), text, 0o600, { uid: account.uid, gid });
      } catch (error) {
        throw new CrontabStoreError(`Could not write crontab for ${user}: ${String(error)}`);
      }
    },
  };
}
