/**
 * Ruby's `Random.new(seed)` exactly: MT19937 seeded by `init_by_array`
 * with the seed's 32-bit words (least significant first), and Ruby's
 * `limited_rand` for `rand(max)` (draws masked to the limit's bit length,
 * retried while above the limit). fqdn_rand, fqdn_rotate and stdlib's
 * seeded_rand* depend on these numbers; seeded_rand_string draws several
 * from one generator.
 */
const N = 624;

export class RubyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed: bigint) {
    const key: number[] = [];
    let s = seed < 0n ? -seed : seed;
    do {
      key.push(Number(s & 0xffffffffn));
      s >>= 32n;
    } while (s > 0n);
    this.initByArray(key);
  }

  private init(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = (mt[i - 1] as number) ^ ((mt[i - 1] as number) >>> 30);
      mt[i] = Math.imul(1812433253, prev) + i;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    this.init(19650218);
    const mt = this.mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = (mt[i - 1] as number) ^ ((mt[i - 1] as number) >>> 30);
      mt[i] = ((mt[i] as number) ^ Math.imul(prev, 1664525)) + (key[j] as number) + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = (mt[i - 1] as number) ^ ((mt[i - 1] as number) >>> 30);
      mt[i] = ((mt[i] as number) ^ Math.imul(prev, 1566083941)) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] as number;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private next32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      for (let k = 0; k < N; k++) {
        const y = ((mt[k] as number) & 0x80000000) | ((mt[(k + 1) % N] as number) & 0x7fffffff);
        mt[k] = (mt[(k + 397) % N] as number) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.mti = 0;
    }
    let y = mt[this.mti++] as number;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `rand(max)` for a positive integer max. */
  rand(max: bigint): bigint {
    const limit = max - 1n;
    if (limit <= 0n) return 0n;
    const bits = limit.toString(2).length;
    const mask = (1n << BigInt(bits)) - 1n;
    const limbs = Math.ceil(bits / 32);
    for (;;) {
      let val = 0n;
      let retry = false;
      for (let i = limbs - 1; i >= 0; i--) {
        if (((mask >> BigInt(i * 32)) & 0xffffffffn) === 0n) continue;
        val |= BigInt(this.next32()) << BigInt(i * 32);
        val &= mask;
        if (val > limit) {
          retry = true;
          break;
        }
      }
      if (!retry) return val;
    }
  }
}

/** `Random.new(seed).rand(max)` for a positive Integer max. */
export function rubyRandInt(seed: bigint, max: bigint): bigint {
  return new RubyRandom(seed).rand(max);
}
