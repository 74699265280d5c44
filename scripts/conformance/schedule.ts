/**
 * The order tests run in. Like testall's parallel mode, the sorted test list
 * is cut into stretches: a serial stretch (consecutive serial or unsafe
 * tests) runs one test at a time, and a parallel stretch runs its ordinary
 * tests on all job slots while its timed and slow tests take turns on one
 * lane beside them. A stretch starts only when the one before it is done.
 */
import { isOneAtATime, isSerialTest, type TestCase } from "./discover.js";

/** One stretch of the run. */
export interface Block {
  readonly serial: boolean;
  /** Tests that may run side by side. */
  readonly parallel: readonly TestCase[];
  /** Tests that run one at a time, in order. */
  readonly oneAtATime: readonly TestCase[];
}

/** Cuts the sorted `tests` into stretches at every change between serial and not. */
export function planBlocks(tests: readonly TestCase[]): Block[] {
  const blocks: { serial: boolean; parallel: TestCase[]; oneAtATime: TestCase[] }[] = [];
  for (const test of tests) {
    const serial = isSerialTest(test.path);
    let block = blocks.at(-1);
    if (block === undefined || block.serial !== serial) {
      block = { serial, parallel: [], oneAtATime: [] };
      blocks.push(block);
    }
    (isOneAtATime(test.path) ? block.oneAtATime : block.parallel).push(test);
  }
  return blocks;
}

/** A counting semaphore whose waiters are served in arrival order. */
export class Semaphore {
  readonly #waiters: (() => void)[] = [];
  #free: number;

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves once a unit is taken; never rejects. An `urgent` caller goes to the head of the queue. */
  acquire(urgent = false): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (urgent ? this.#waiters.unshift(resolve) : this.#waiters.push(resolve)));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}

/** Runs one test with a gate that holds the given semaphores, in order, during each pass. */
export type TestRunner<R> = (
  test: TestCase,
  gate: { acquire(): Promise<void>; release(): void },
) => Promise<R>;

/** Takes `lane` (if any) in arrival order, then a slot; lane holders jump the slot queue. */
function gateOf(slots: Semaphore, lane?: Semaphore) {
  return {
    acquire: async () => {
      await lane?.acquire();
      await slots.acquire(lane !== undefined);
    },
    release: () => {
      slots.release();
      lane?.release();
    },
  };
}

/**
 * Runs every block in turn on `jobs` slots and returns the results in the
 * order of `tests`. A one-at-a-time test holds the lane and one slot while a
 * pass runs, and is served before the waiting parallel tests (as make starts
 * testall's serial recipe first), so timed tests' waits overlap other work;
 * a timed test that is waiting holds neither.
 */
export async function runBlocks<R>(
  tests: readonly TestCase[],
  jobs: number,
  run: TestRunner<R>,
): Promise<R[]> {
  const slots = new Semaphore(Math.max(1, jobs));
  const results = new Map<TestCase, R>();
  for (const block of planBlocks(tests)) {
    const lane = new Semaphore(1);
    const started = [
      ...block.parallel.map((test) => run(test, gateOf(slots)).then((r) => results.set(test, r))),
      ...block.oneAtATime.map((test) => run(test, gateOf(slots, lane)).then((r) => results.set(test, r))),
    ];
    await Promise.all(started);
  }
  return tests.map((test) => results.get(test)!);
}
