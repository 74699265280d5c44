/**
 * cf-monitord 3.21's statistics: per observable, a weekly average and
 * variance for each 5-minute slot of the week (`Thu:Hr15:Min55_00`),
 * learned with a forget rate, beside a local (since the daemon started)
 * average; anomalous samples damped before they are learned; and the
 * classes and variables each sample publishes. Pure functions over
 * numbers, so the maths is testable with fixed inputs.
 */

/** One observable's statistics: the last value, expectation, variance, gradient. */
export interface Stat {
  q: number;
  expect: number;
  var: number;
  dq: number;
}

export const NOISE_THRESHOLD = 6;
const THRESHOLD_HIGH = 1_000_000;
const SANE_LIMIT = 9_999_999;
/** 3.21's CF_MEASURE_INTERVAL (seconds) and a week in seconds. */
export const MEASURE_INTERVAL = 300;
export const SECONDS_PER_WEEK = 7 * 24 * 3600;

export function emptyStat(): Stat {
  return { q: 0, expect: 0, var: 0, dq: 0 };
}

/**
 * The weighted average of a new and an old value. A young database (age < 2)
 * learns eagerly (the new value weighs `forgetRate`), an older one leans on
 * experience (the old value does); a forget rate outside 0.1-0.9 is 0.6.
 */
export function weightedAverage(newValue: number, oldValue: number, age: number, forgetRate: number): number {
  const oldBad = oldValue > SANE_LIMIT;
  const newBad = newValue > SANE_LIMIT;
  if (oldBad && newBad) return 0;
  if (oldBad) return newValue;
  if (newBad) return oldValue;
  const rate = forgetRate > 0.9 || forgetRate < 0.1 ? 0.6 : forgetRate;
  const [wNew, wOld] = age < 2 ? [rate, 1 - rate] : [1 - rate, rate];
  if (oldValue === 0 && newValue === 0) return 0;
  const average = wNew * newValue + wOld * oldValue;
  return Math.max(0, average);
}

/**
 * A sample as it is learned: absurd values dropped, and one far outside
 * both the weekly and the local spread replaced, 3 times in 10, by the
 * average ± 2 deviations (`random` is drand48's draw).
 */
export function rejectAnomaly(
  value: number,
  average: number,
  variance: number,
  localAverage: number,
  localVariance: number,
  random: () => number,
): number {
  const dev = Math.sqrt(variance + localVariance);
  if (average === 0) return value;
  if (value > THRESHOLD_HIGH * 4) return 0;
  if (value > THRESHOLD_HIGH) return average;
  if ((value - average) ** 2 < NOISE_THRESHOLD ** 2) return value;
  const delta = Math.sqrt((value - average) ** 2 + (value - localAverage) ** 2);
  if (delta > 4 * dev && random() >= 0.7) return value > average ? average + 2 * dev : average - 2 * dev;
  return value;
}

/** The state carried from sample to sample by the daemon (3.21's statics). */
export interface Learner {
  /** Samples taken since the database began (DATABASE_AGE). */
  age: number;
  /** Samples since the daemon started (ITER). */
  iteration: number;
  /** Local averages, one per slot. */
  readonly local: Stat[];
  /** The value of each slot at the previous sample (for the gradient). */
  readonly last: number[];
}

export function newLearner(slots: number, age = 0): Learner {
  return {
    age,
    iteration: 0,
    local: Array.from({ length: slots }, emptyStat),
    last: Array.from({ length: slots }, () => 0),
  };
}

/**
 * Learns one sample into last week's statistics for this time slot
 * (3.21's EvalAvQ): returns the new statistics to store for the slot; the
 * learner's local averages and age move on.
 */
export function learn(
  learner: Learner,
  values: ArrayLike<number>,
  lastWeek: readonly Stat[],
  forgetRate: number,
  random: () => number,
): Stat[] {
  learner.age++;
  const weeklyAge = (learner.age / SECONDS_PER_WEEK) * MEASURE_INTERVAL;
  const out: Stat[] = [];
  for (let i = 0; i < values.length; i++) {
    const old = lastWeek[i] ?? emptyStat();
    const prev = { expect: Math.max(0, old.expect), q: Math.max(0, old.q), var: Math.max(0, old.var) };
    const local = learner.local[i] as Stat;
    const value = rejectAnomaly(values[i] as number, prev.expect, prev.var, local.expect, local.var, random);
    const stat: Stat = { q: value, expect: 0, var: 0, dq: 0 };
    local.q = value;
    stat.expect = weightedAverage(value, prev.expect, weeklyAge, forgetRate);
    local.expect = weightedAverage(stat.expect, local.expect, learner.iteration, forgetRate);
    // 3.21 keeps the "five minutes ago" values in a local array reset on each
    // call, so the gradient is always 0; tend does the same.
    stat.dq = 0;
    local.dq = 0;
    const delta2 = (value - prev.expect) ** 2;
    if (prev.var > delta2 * 2) stat.var = delta2;
    else stat.var = weightedAverage(delta2, prev.var, weeklyAge, forgetRate);
    local.var = weightedAverage(stat.var, local.var, learner.iteration, forgetRate);
    out.push(stat);
  }
  return out;
}

/** A class the sample defines, and whether 3.21 keeps it as a persistent class. */
export interface MonitorClass {
  readonly name: string;
  readonly persistent: boolean;
}

/**
 * The classes for one observable (3.21's SetClasses) and the deviation it
 * publishes as `dev_<name>`: √(σ² + σ_local²).
 */
export function classify(
  name: string,
  value: number,
  weekly: Stat,
  local: Stat,
): { classes: MonitorClass[]; sigma: number; noVariation: boolean } {
  const delta = value - weekly.expect;
  const sigma = Math.sqrt(weekly.var);
  const ldelta = value - local.expect;
  const lsigma = Math.sqrt(local.var);
  const sig = Math.sqrt(sigma * sigma + lsigma * lsigma);
  if (sigma === 0 || lsigma === 0) return { classes: [], sigma: sig, noVariation: true };
  const base =
    delta > 0 && ldelta > 0 ? `${name}_high` : delta < 0 && ldelta < 0 ? `${name}_low` : `${name}_normal`;
  const dev = Math.sqrt((delta * delta) / (1 + sigma * sigma) + (ldelta * ldelta) / (1 + lsigma * lsigma));
  const classes: MonitorClass[] = [];
  if (Math.abs(delta) < NOISE_THRESHOLD) {
    classes.push({ name: base, persistent: false });
    if (dev > 2 * Math.SQRT2) classes.push({ name: `${base}_microanomaly`, persistent: true });
    return { classes, sigma: sig, noVariation: false };
  }
  classes.push({ name: dev <= Math.SQRT2 ? `${base}_normal` : `${base}_dev1`, persistent: false });
  if (dev > 2 * Math.SQRT2) classes.push({ name: `${base}_dev2`, persistent: true });
  if (dev > 3 * Math.SQRT2) classes.push({ name: `${base}_anomaly`, persistent: true });
  return { classes, sigma: sig, noVariation: false };
}

/**
 * The key 3.21 counts a /proc/net line under for the entropy classes: it
 * reads the line as `local remote`, so it takes the second word (the local
 * address and port) and cuts it before its trailing digits, one character
 * more included (`0100007F:0016` → `0100007F`).
 */
export function entropyKey(line: string): string {
  const word = line.trim().split(/\s+/)[1] ?? "";
  let end = word.length - 1;
  while (end > 0 && /\d/.test(word[end] as string)) end--;
  return word.slice(0, Math.max(0, end));
}

/** The entropy class of a service's connections (3.21's MonEntropyClassesSet), given their keys. */
export function entropyClass(service: string, direction: "in" | "out", remotes: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const remote of remotes) counts.set(remote, (counts.get(remote) ?? 0) + 1);
  let entropy = 0;
  if (counts.size >= 2) {
    const sum = remotes.length;
    for (const n of counts.values()) entropy -= (n / sum) * Math.log(n / sum);
    entropy /= Math.log(counts.size);
  }
  const kind = entropy > 0.9 ? "high" : entropy < 0.2 ? "low" : "medium";
  return `entropy_${service}_${direction}_${kind}`;
}

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The 5-minute slot of the week a time falls in (UTC), as 3.21's GenTimeKey names it: `Thu:Hr15:Min55_00`. */
export function timeKey(date: Date): string {
  const two = (n: number) => String(n).padStart(2, "0");
  const minute = Math.floor(date.getUTCMinutes() / 5) * 5;
  return `${DAYS[date.getUTCDay()]}:Hr${two(date.getUTCHours())}:Min${two(minute)}_${two((minute + 5) % 60)}`;
}

/** Samples in the leap detection window (3.21's LDT_BUFSIZE). */
export const LDT_SIZE = 10;

/** 3.21's leap detection state: a ring of the last 10 samples per observable. */
export interface LeapState {
  position: number;
  full: boolean;
  readonly buffer: number[][];
  readonly sum: number[];
  readonly average: number[];
  readonly chi: number[];
  readonly chiLimit: number[];
  readonly max: number[];
}

export function newLeapState(slots: number): LeapState {
  const zeros = () => Array.from({ length: slots }, () => 0);
  return {
    position: 0,
    full: false,
    buffer: Array.from({ length: slots }, () => Array.from({ length: LDT_SIZE }, () => 0)),
    sum: zeros(),
    average: zeros(),
    chi: zeros(),
    chiLimit: Array.from({ length: slots }, () => 0.1),
    max: zeros(),
  };
}

/**
 * 3.21's LeapDetection, run after the averages are learned: a value more
 * than 1000 times the previous one is taken for a numerical error and
 * replaced by it (in `values`, so the published value changes too), and a
 * chi statistic is kept against a limit set each time the window wraps.
 * 3.21 never adds to its running sum (it adds and removes the same new
 * value), so the sum stays 0; tend keeps that, so the classes agree.
 */
export function leapDetection(state: LeapState, values: Float64Array | number[]): void {
  const last = state.position;
  if (++state.position >= LDT_SIZE) {
    state.position = 0;
    state.full = true;
  }
  for (let i = 0; i < values.length; i++) {
    const buffer = state.buffer[i] as number[];
    const previous = buffer[last] as number;
    if (previous > 0 && (values[i] as number) / previous > 1000) values[i] = previous;
    const value = values[i] as number;
    state.average[i] = (state.average[i] as number) + value / (LDT_SIZE + 1);
    const d = LDT_SIZE * (LDT_SIZE + 1) * (state.average[i] as number);
    if (state.full && state.position === 0) {
      const n2 = (state.sum[i] as number) - LDT_SIZE * (state.max[i] as number);
      state.chiLimit[i] = d < 0.001 ? 0.5 : 0.2 + Math.sqrt((n2 * n2) / d);
      state.max[i] = 0;
    }
    if (value > (state.max[i] as number)) state.max[i] = value;
    const n1 = (state.sum[i] as number) - LDT_SIZE * value;
    state.chi[i] = d < 0.001 ? 0 : Math.sqrt((n1 * n1) / d);
    state.average[i] = (state.average[i] as number) - (buffer[state.position] as number) / (LDT_SIZE + 1);
    buffer[state.position] = value;
  }
}

/** The leap class of an observable after leapDetection, if any: `<name>_high_ldt` or `_low_ldt`. */
export function leapClass(
  state: LeapState,
  slot: number,
  name: string,
  value: number,
  expect: number,
): string | undefined {
  if (!state.full || (state.chi[slot] as number) <= (state.chiLimit[slot] as number)) return undefined;
  return value > expect ? `${name}_high_ldt` : `${name}_low_ldt`;
}
