/**
 * Records what cf-monitord 3.21 makes of measurements promises over several
 * samples, as the expected outputs of test/monitor/measurements-samples.test.ts
 * (issue 15, must-show 2). cf-monitord runs in a private mount namespace with
 * a scratch work directory bound over /var/lib/cfengine3; before each of its
 * samples (every 2.5 minutes, which cannot be shortened) the script writes
 * the next content of the file the promises read, and after each sample it
 * keeps the measurement lines of env_data, the log file and the time of the
 * sample. Five samples take about ten minutes.
 *
 *   node dist/scripts/record-monitord-samples.js [--samples 5]
 *
 * The fixture goes to test/fixtures/monitor/samples.json.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DATA_PLACEHOLDER, SAMPLE_DATA, samplesPolicy } from "../test/monitor/samples-policy.js";

const FIXTURE = fileURLToPath(new URL("../../test/fixtures/monitor/samples.json", import.meta.url));

export interface RecordedSample {
  /** The content of the data file during this sample. */
  readonly data: string;
  /** When cf-monitord wrote env_data after this sample (ms since the epoch). */
  readonly writtenAt: number;
  /** The time slot cf-monitord logged for it (`Fri:Hr05:Min30_35`). */
  readonly slot: string | null;
  /** The measurement lines of env_data, in order. */
  readonly envData: readonly string[];
  /** The lines of the `logged` measurement's log, the time stamp taken off. */
  readonly log: readonly string[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { samples: { type: "string" } } });
  const count = Number(values.samples ?? 5);
  const root = mkdtempSync(join(tmpdir(), "tend-record-monitord-"));
  const dir = join(root, "host");
  for (const sub of ["inputs", "state", "ppkeys"]) mkdirSync(join(dir, sub), { recursive: true });
  for (const sub of ["", "state", "ppkeys"]) chmodSync(join(dir, sub), 0o700);
  const data = join(root, "data.txt");
  writeFileSync(join(dir, "inputs/promises.cf"), samplesPolicy().replaceAll(DATA_PLACEHOLDER, data));
  writeFileSync(data, SAMPLE_DATA[0] as string);
  const child = spawn(
    "unshare",
    [
      "-m",
      "sh",
      "-c",
      'mount --bind "$0" /var/lib/cfengine3 && exec "$@"',
      dir,
      "/usr/bin/cf-monitord",
      "-F",
      "-I",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const envData = join(dir, "state/env_data");
  const samples: RecordedSample[] = [];
  let lastMtime = 0;
  try {
    while (samples.length < count) {
      await new Promise((r) => setTimeout(r, 200));
      if (child.exitCode !== null) throw new Error(`cf-monitord exited: ${out}`);
      if (!existsSync(envData)) continue;
      const mtime = statSync(envData).mtimeMs;
      if (mtime === lastMtime) continue;
      lastMtime = mtime;
      // env_data is written last; give the log file a moment, then read both.
      await new Promise((r) => setTimeout(r, 500));
      const slots = [...out.matchAll(/Updated averages at '([^']+)'/g)].map((m) => m[1] as string);
      const logFile = join(dir, "state/logged_measure.log");
      samples.push({
        data: SAMPLE_DATA[samples.length % SAMPLE_DATA.length] as string,
        writtenAt: Math.round(mtime),
        slot: slots.at(-1) ?? null,
        envData: readFileSync(envData, "utf8")
          .split("\n")
          .filter((l) =>
            /^(value|av|dev)_(temp_now|temp_weekly|errors|error_codes|echoed)=|^temp_weekly_/.test(l),
          ),
        log: existsSync(logFile)
          ? readFileSync(logFile, "utf8")
              .trim()
              .split("\n")
              .map((l) => l.replace(/^[^,]*,\d+,/, ""))
          : [],
      });
      process.stdout.write(`sample ${samples.length}/${count} at ${new Date(mtime).toISOString()}\n`);
      writeFileSync(data, SAMPLE_DATA[samples.length % SAMPLE_DATA.length] as string);
    }
  } finally {
    child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  }
  mkdirSync(join(FIXTURE, ".."), { recursive: true });
  const recorded = {
    recordedWith: "cf-monitord 3.21.0 (Debian cfengine3), -F -I, in a private mount namespace",
    recordedAt: new Date().toISOString(),
    samples,
  };
  writeFileSync(`${FIXTURE}.tmp`, `${JSON.stringify(recorded, null, 2)}\n`);
  renameSync(`${FIXTURE}.tmp`, FIXTURE);
  process.stdout.write(`wrote ${FIXTURE}\n`);
}

await main();
