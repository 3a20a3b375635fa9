import type { RateLimitStyle, ServiceFaults } from './types';

/** Deterministic PRNG (mulberry32) so that a seeded sandbox injects the same faults on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Request limiter of one service, in the style its module declares (`RateLimitStyle`). */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();
  private readonly lockedUntil = new Map<string, number>();

  constructor(private readonly mode: RateLimitStyle) {}

  /** Returns 0 when the request may pass (and counts it), else the ms to wait. */
  take(key: string, now: number, limit: ServiceFaults['rateLimit']): number {
    if (!limit) return 0;
    const locked = this.lockedUntil.get(key) ?? 0;
    if (locked > now) return locked - now;
    const list = (this.hits.get(key) ?? []).filter((t) => t > now - limit.windowMs);
    this.hits.set(key, list);
    if (list.length < limit.count) {
      list.push(now);
      return 0;
    }
    if (this.mode === 'lockout') {
      this.lockedUntil.set(key, now + limit.windowMs);
      return limit.windowMs;
    }
    return Math.max(1, list[0] + limit.windowMs - now);
  }

  reset(): void {
    this.hits.clear();
    this.lockedUntil.clear();
  }
}

export const NO_FAULTS: ServiceFaults = {
  latencyMs: 0,
  faultRate: 0,
  appliedFaultRate: 0,
  resetRate: 0,
  rateLimit: null,
  down: false,
};

/** Parses the CLI form `N/SECONDS` (e.g. `30/60`) into a rate limit. */
export function parseRateLimit(text: string): { count: number; windowMs: number } {
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(text.trim());
  if (!m || Number(m[1]) < 1 || Number(m[2]) <= 0) {
    throw new Error(`--rate-limit expects N/SECONDS (e.g. 30/60), got "${text}"`);
  }
  return { count: Number(m[1]), windowMs: Math.round(Number(m[2]) * 1000) };
}
