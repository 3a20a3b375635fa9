/**
 * Redirect rules and the run's memory of permanent redirects. Pure (no I/O) so the rules can be
 * tested without a network; `client.ts` applies them to every exchange.
 */

/** Redirects followed per request; one more is an error (a loop, or a chain nobody should rely on). */
export const MAX_REDIRECTS = 3;

/** Followed with the same method and body (the vendor's publisher re-sends a POST to the new host). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 307, 308]);

/** 301 and 308 are the service saying "use the new address from now on". */
export const isPermanent = (status: number): boolean => status === 301 || status === 308;

/** A learned (or seeded) rewrite: URLs equal to `from`, or under it, move to `to`. */
export interface Rewrite {
  from: string;
  to: string;
  /** The service whose request taught it (absent for seeded ones given without it). */
  service?: string;
}

/** 127.0.0.0/8, localhost, ::1 (also IPv4-mapped 127.x): traffic that never leaves this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127(\.\d{1,3}){3}$/.test(h)) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // WHATWG URL prints ::ffff:127.0.0.1 as ::ffff:7f00:1; 7fxx:xxxx covers 127.0.0.0/8.
  return /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Where a redirect may take a request (and its credentials): https anywhere; plain http only to this
 * machine (the sandbox, a local proxy), never across a network in clear text.
 */
export function redirectAllowed(target: URL): boolean {
  if (target.username || target.password) return false;
  if (target.protocol === 'https:') return true;
  return target.protocol === 'http:' && isLoopbackHost(target.hostname);
}

/**
 * Whether a request's credentials may follow it from `start` (where it was sent) to `target`: the same
 * origin, one of the service's own hosts (`homes`, e.g. its former and current site), or this machine
 * when the request started here (the sandbox's former-host port). Any other host would get the keys of
 * an account that is not its own.
 */
export function credentialsMayFollow(start: URL, target: URL, homes: readonly string[]): boolean {
  if (target.origin === start.origin) return true;
  if (target.protocol === 'https:' && homes.includes(target.hostname.toLowerCase())) return true;
  return isLoopbackHost(start.hostname) && isLoopbackHost(target.hostname);
}

/** `url` without its fragment (never sent) and normalised (host case, default port). */
export function normalizeUrl(url: string | URL): string {
  const u = new URL(String(url));
  u.hash = '';
  return u.href;
}

/**
 * The prefix rewrite one redirect teaches: the common tail of both paths is dropped, so
 * `https://old/api/projects/1/x` → `https://new/api/projects/1/x` becomes `https://old` → `https://new`
 * and covers every later request under the old base. A redirect that changes the query is not
 * generalised (undefined): it is followed again each time, which is always correct.
 */
export function rewriteOf(from: URL, to: URL): { from: string; to: string } | undefined {
  if (from.search !== to.search) return undefined;
  const a = from.pathname.split('/');
  const b = to.pathname.split('/');
  // Segment 0 is the empty string before the leading '/': always kept, so prefixes end at a boundary.
  while (a.length > 1 && b.length > 1 && a[a.length - 1] === b[b.length - 1]) {
    a.pop();
    b.pop();
  }
  const rule = { from: from.origin + a.join('/'), to: to.origin + b.join('/') };
  return rule.from === rule.to ? undefined : rule;
}

/** Does `url` fall under `prefix` (equal, or continuing at a path/query boundary)? */
function under(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const next = url.charAt(prefix.length);
  return next === '' || next === '/' || next === '?' || (prefix.endsWith('/') && next !== '');
}

/** The run's permanent redirects, applied before every request. */
export class RedirectMemory {
  private readonly rules: Rewrite[] = [];

  /**
   * Where `url` goes now; `url` itself (byte for byte) when no rule applies. Chains (A→B, B→C) are
   * followed, bounded like live redirects.
   */
  apply(url: string): string {
    if (!this.rules.length) return url;
    let out = normalizeUrl(url);
    let moved = false;
    for (let i = 0; i < MAX_REDIRECTS; i++) {
      let best: Rewrite | undefined;
      for (const r of this.rules) if (under(out, r.from) && (!best || r.from.length > best.from.length)) best = r;
      if (!best) break;
      out = best.to + out.slice(best.from.length);
      moved = true;
    }
    return moved ? out : url;
  }

  /** Records what a permanent redirect teaches; returns the rule when it is new (to report it once). */
  learn(service: string, from: URL, to: URL): Rewrite | undefined {
    const rule = rewriteOf(from, to);
    if (!rule || normalizeUrl(this.apply(rule.from)) === normalizeUrl(rule.to)) return undefined;
    // A rule leading back to where it starts (A→B, then B→A) would only be a loop: the hop limit reports it.
    if (normalizeUrl(this.apply(rule.to)) === normalizeUrl(rule.from)) return undefined;
    const learned = { ...rule, service };
    this.rules.push(learned);
    return { ...learned };
  }

  /** Pre-seeds rules (e.g. from a journal on replay). A target the rules refuse is an error. */
  seed(rules: ReadonlyArray<Rewrite>): void {
    for (const r of rules) {
      const from = new URL(r.from);
      const to = new URL(r.to);
      if (!redirectAllowed(to)) throw new TypeError(`refusing a remembered redirect to ${to.origin}: not https and not this machine`);
      const rule = { from: from.origin + from.pathname.replace(/\/$/, ''), to: to.origin + to.pathname.replace(/\/$/, '') };
      if (rule.from !== rule.to && !this.rules.some((x) => x.from === rule.from))
        this.rules.push({ ...rule, ...(r.service ? { service: r.service } : {}) });
    }
  }

  all(): Rewrite[] {
    return this.rules.map((r) => ({ ...r }));
  }
}
