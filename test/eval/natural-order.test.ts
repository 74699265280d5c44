import assert from "node:assert/strict";
import { test } from "node:test";
import { compareNaturally } from "../../src/eval/natural-order.js";

const byIcu = (a: string, b: string) => Math.sign(a.localeCompare(b, "en", { numeric: true }));

test("interface names sort as ifconfig lists them", () => {
  const names = ["wlan0", "eth10", "lo", "eth2", "docker0", "br-1a2b", "eth0.100", "eth0", "Eth1", "veth_x"];
  assert.deepEqual([...names].sort(compareNaturally), [...names].sort(byIcu));
});

test("agrees with ICU's numeric collation on printable ASCII", () => {
  // A fixed pseudo-random sequence: the same cases every run.
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = "aAbBzZ019_-.@:/ ~$";
  const word = () => Array.from({ length: 1 + next(6) }, () => alphabet[next(alphabet.length)]).join("");
  for (let i = 0; i < 5000; i++) {
    const [a, b] = [word(), word()];
    assert.equal(compareNaturally(a, b), byIcu(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  }
});

test("leading zeros do not count, as in ICU", () => {
  assert.equal(compareNaturally("eth01", "eth1"), 0);
  assert.equal(compareNaturally("eth9", "eth010"), -1);
});
