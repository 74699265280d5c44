/**
 * Turning one agent run's output and exit status into a test outcome, by the
 * rules `testall` uses. Pure: no I/O, so it is unit-tested with made-up output.
 */
import type { TestType } from "./discover.js";

/**
 * `Pass`; `FAIL`; `XFAIL` (a suppressed failure, still counted as failed);
 * `SFAIL` (a soft failure the test announced); `FLAKEY`; `Skip`; `Wait` (a
 * timed test asks to be run again, with the next pass's class, later).
 */
export type Outcome = "Pass" | "FAIL" | "XFAIL" | "SFAIL" | "FLAKEY" | "Skip" | "Wait";

/** What one agent run left behind: merged stdout+stderr and the shell's exit status. */
export interface RunFacts {
  readonly output: string;
  /** Exit status as a shell reports it: 128+N when the agent died of signal N. */
  readonly status: number;
  readonly timedOut: boolean;
}

/** The outcome of a run and the words testall would print for it. */
export interface Verdict {
  readonly outcome: Outcome;
  readonly message: string;
  readonly ticket?: string;
  readonly waitSeconds?: number;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Matches report lines about `test` (or from dcs.cf.sub) followed by `tail`. */
function outcomeLine(test: string, tail: string): RegExp {
  return new RegExp(`R: .*(?:${escapeRegExp(test)}|dcs\\.cf\\.sub) ${tail}`);
}

function findLines(output: string, pattern: RegExp): string[] {
  return output.split("\n").filter((line) => pattern.test(line));
}

/**
 * The verdict for one run of `test` (its `./dir/name.cf` path). `canWait` is
 * true for tests in a `timed/` directory, the only ones allowed to ask for
 * another pass with `Wait/<seconds>`.
 */
export function classifyRun(test: string, type: TestType, run: RunFacts, canWait: boolean): Verdict {
  if (run.timedOut) return { outcome: "FAIL", message: "FAIL (timed out)" };
  if (type === "errorexit") return classifyErrorExit(run);
  if (type === "errorlog") return classifyErrorLog(run);
  return classifyReported(test, run, canWait);
}

function classifyErrorExit(run: RunFacts): Verdict {
  if (run.status > 0 && run.status < 128 && /error:|aborted on defined class/.test(run.output)) {
    return { outcome: "Pass", message: "Pass" };
  }
  if (run.status >= 128) return { outcome: "FAIL", message: "FAIL (CRASH!!! THIS IS A BUG!)" };
  return { outcome: "FAIL", message: "FAIL (Failed to exit with error!)" };
}

function classifyErrorLog(run: RunFacts): Verdict {
  if (run.status !== 0) return { outcome: "FAIL", message: "FAIL (NON-ZERO EXIT CODE!)" };
  if (run.output.includes("error: ")) return { outcome: "Pass", message: "Pass" };
  return { outcome: "FAIL", message: "FAIL (No errors printed)" };
}

function classifyReported(test: string, run: RunFacts, canWait: boolean): Verdict {
  const has = (tail: string) => outcomeLine(test, tail).test(run.output);
  // An announced expected failure decides the test before the exit status
  // does, provided the test did not also ask to wait.
  if (has("[XS]FAIL") && !has("Wait/")) return classifyExpectedFailure(test, run.output);
  if (run.status !== 0) return { outcome: "FAIL", message: `FAIL (exit status ${run.status})` };
  if (has("FAIL/no_ticket_number")) {
    return { outcome: "FAIL", message: "FAIL (Tried to suppress failure, but no issue number is provided)" };
  }
  const wait = findLines(run.output, outcomeLine(test, "Wait/[0-9]+"))[0];
  if (wait !== undefined) {
    if (!canWait)
      return { outcome: "FAIL", message: 'FAIL (Test tried to wait but is not in "timed" directory)' };
    const waitSeconds = Number(/Wait\/([0-9]+)/.exec(wait)![1]);
    return { outcome: "Wait", message: `Awaiting (${waitSeconds} seconds)...`, waitSeconds };
  }
  // Convergence passes may report FAIL before Pass: a Pass anywhere wins.
  if (has("Pass")) return { outcome: "Pass", message: "Pass" };
  if (has("Skip/unsupported")) return { outcome: "Skip", message: "Skipped (No platform support)" };
  if (has("Skip/needs_work")) return { outcome: "Skip", message: "Skipped (Test needs work)" };
  const flakey = findLines(run.output, outcomeLine(test, "FLAKEY"))[0];
  if (flakey !== undefined) {
    const ticket = /FLAKEY\/(.*)$/.exec(flakey)?.[1] ?? "";
    return { outcome: "FLAKEY", message: `Flakey fail (${ticket})`, ticket };
  }
  return { outcome: "FAIL", message: "FAIL" };
}

function classifyExpectedFailure(test: string, output: string): Verdict {
  const about = findLines(output, outcomeLine(test, ""));
  if (about.some((line) => outcomeLine(test, "Pass").test(line))) {
    return { outcome: "FAIL", message: "FAIL (The test Passed, but failure was expected)" };
  }
  if (about.some((line) => !outcomeLine(test, "[XS]?FAIL").test(line))) {
    return {
      outcome: "FAIL",
      message: "FAIL (Failure was expected, but the test had an unexpected test outcome)",
    };
  }
  const line = findLines(output, outcomeLine(test, "[XS]FAIL"))[0]!;
  const kind = /([XS]FAIL)/.exec(line)![1] as "XFAIL" | "SFAIL";
  const ticket = /[XS]FAIL\/(.*)$/.exec(line)?.[1] ?? "";
  const message = kind === "XFAIL" ? `FAIL (Suppressed, ${ticket})` : `Soft fail (${ticket})`;
  return { outcome: kind, message, ticket };
}

/**
 * A one-line hint for a failed test: the last non-blank lines of its output,
 * plus a note when the output reports an outcome for the test under another
 * spelling of its path (the agent must print `$(this.promise_filename)`
 * exactly as cf-agent does, `./` included, for testall's match to succeed).
 */
export function describeFailure(test: string, output: string, maxLength = 200): string {
  const lines = output
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const name = test.replace(/^\.\//, "");
  const respelled = lines.find((line) => /R: .* (?:Pass|FAIL)/.test(line) && line.includes(name));
  const note =
    respelled && !outcomeLine(test, "").test(respelled) ? "[outcome printed for another path] " : "";
  const tail = lines.slice(-2).join(" | ") || "(no output)";
  const text = note + tail;
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}
