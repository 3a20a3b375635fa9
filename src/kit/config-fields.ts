/**
 * Small typed readers for "option, else env var, else default" with one-line problems that name
 * both the option key and the env var. Used by config.ts and by each target's config reader.
 */

import { isLoopbackHost } from '../http/redirects';
import { OUTCOMES, type Outcome } from '../model';

export type Env = Record<string, string | undefined>;

export class Problems {
  readonly lines: string[] = [];
  add(option: string, envVar: string | undefined, message: string): void {
    const where = envVar ? `${option} (env ${envVar})` : option;
    this.lines.push(`${where}: ${message}`);
  }
}

/** Reads option value, falling back to the env var. Empty strings count as unset. */
export function pick(option: unknown, env: Env, envVar: string | undefined): { value: unknown; from: 'option' | 'env' | 'none' } {
  if (option !== undefined && option !== null && option !== '') return { value: option, from: 'option' };
  const e = envVar ? env[envVar] : undefined;
  if (e !== undefined && e.trim() !== '') return { value: e.trim(), from: 'env' };
  return { value: undefined, from: 'none' };
}

export function readString(p: Problems, option: unknown, env: Env, name: string, envVar?: string): string | undefined {
  const { value } = pick(option, env, envVar);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    p.add(name, envVar, `expected a string, got ${typeof value}`);
    return undefined;
  }
  return value.trim();
}

/** Integer (numbers or numeric strings). `min` bounds it. */
export function readInt(p: Problems, option: unknown, env: Env, name: string, envVar: string | undefined, min: number): number | undefined {
  const { value } = pick(option, env, envVar);
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    p.add(name, envVar, `expected a whole number${min > -Infinity ? ` ≥ ${min}` : ''}, got ${JSON.stringify(value)}`);
    return undefined;
  }
  return n;
}

/**
 * A boolean; a value that is neither gets one line and `fallback`, or `unreadable` where the safe reading of
 * a switch that was clearly meant to be set differs from its default (a misspelt dry run must not publish).
 */
export function readBool(
  p: Problems,
  option: unknown,
  env: Env,
  name: string,
  envVar: string | undefined,
  fallback: boolean,
  unreadable?: { value: boolean; because: string },
): boolean {
  const { value } = pick(option, env, envVar);
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  const s = String(value).trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  p.add(name, envVar, `expected true/false (or 1/0), got ${JSON.stringify(value)}${unreadable ? `; ${unreadable.because}` : ''}`);
  return unreadable?.value ?? fallback;
}

/**
 * http(s) URL without a trailing slash. `credentials`: every request to it carries them, so plain http is taken
 * for a local host only (the sandbox: loopback, or a name without a dot as in a compose network).
 */
export function readUrl(
  p: Problems,
  option: unknown,
  env: Env,
  name: string,
  envVar: string,
  fallback: string,
  { credentials = false }: { credentials?: boolean } = {},
): string {
  const raw = readString(p, option, env, name, envVar);
  if (raw === undefined) return fallback;
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
    if (u.search || u.hash) {
      p.add(name, envVar, `must not contain a query or fragment, got "${raw}"`);
      return fallback;
    }
    if (credentials && u.protocol === 'http:' && !isLocalHost(u.hostname)) {
      p.add(
        name,
        envVar,
        `plain http to ${u.hostname} would send the credentials unencrypted: use https (http is taken for a local host only, such as the sandbox), got "${raw}"`,
      );
      return fallback;
    }
    return raw.replace(/\/+$/, '');
  } catch {
    p.add(name, envVar, `expected an http(s) URL, got "${raw}"`);
    return fallback;
  }
}

/** This machine, or a name without a dot (a service in a compose network): never a host across the internet. */
function isLocalHost(hostname: string): boolean {
  return isLoopbackHost(hostname) || !/[.:]/.test(hostname.replace(/^\[|\]$/g, ''));
}

/** `N/SECONDS`, e.g. `200/60`. */
export function readRate(
  p: Problems,
  option: unknown,
  env: Env,
  name: string,
  envVar: string,
): { count: number; windowMs: number } | null | undefined {
  const { value } = pick(option, env, envVar);
  if (value === undefined) return undefined;
  const s = String(value).trim().toLowerCase();
  if (s === 'off' || s === 'none' || s === '0') return null;
  const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(s);
  if (!m || Number(m[1]) < 1 || Number(m[2]) <= 0) {
    p.add(name, envVar, `expected N/SECONDS such as 200/60 (or "off"), got ${JSON.stringify(value)}`);
    return undefined;
  }
  return { count: Number(m[1]), windowMs: Math.round(Number(m[2]) * 1000) };
}

/** One of a fixed set of words (case-insensitive). */
export function readChoice<T extends string>(
  p: Problems,
  option: unknown,
  env: Env,
  name: string,
  envVar: string,
  choices: readonly T[],
  fallback: T,
): T {
  const raw = readString(p, option, env, name, envVar);
  if (raw === undefined || raw === '') return fallback;
  const found = choices.find((c) => c === raw.toLowerCase());
  if (found) return found;
  p.add(name, envVar, `expected one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  return fallback;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Warns about option keys nobody reads (typos such as `acessKey`). */
export function checkUnknownKeys(p: Problems, obj: Record<string, unknown>, known: readonly string[], prefix: string): void {
  for (const key of Object.keys(obj)) {
    // Playwright adds `configDir`, `_mode` and `_commandHash` to every reporter's options, and `onlyFailures` in list mode.
    if (key.startsWith('_') || key === 'configDir' || key === 'onlyFailures' || known.includes(key)) continue;
    const close = known.find((k) => k.toLowerCase() === key.toLowerCase() || levenshtein(k, key) <= 2);
    p.add(`${prefix}${key}`, undefined, `unknown option${close ? ` (did you mean ${prefix}${close}?)` : ''}; ignored`);
  }
}

function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

/** Playwright outcome -> service status, by id or by name. `timedOut` defaults to the `failed` row. */
export type StatusMapOption = Partial<Record<Outcome, number | string>>;

/** Reads a `statusMap` option: known outcomes only, each mapped to a status id or a non-empty name. */
export function readStatusMap(
  p: Problems,
  v: unknown,
  name: string,
  /** What a value is, in the service's terms (CucumberStudio's statuses have names only). */
  expected = { value: 'a status id or name', example: `{ failed: 'FAIL' }` },
): StatusMapOption {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) {
    p.add(name, undefined, `expected an object such as ${expected.example}`);
    return {};
  }
  const out: StatusMapOption = {};
  for (const [k, val] of Object.entries(v)) {
    if (!(OUTCOMES as readonly string[]).includes(k)) {
      p.add(`${name}.${k}`, undefined, `unknown outcome; use one of ${OUTCOMES.join(', ')}`);
    } else if ((typeof val === 'number' && Number.isInteger(val)) || (typeof val === 'string' && val.trim() !== '')) {
      out[k as Outcome] = typeof val === 'string' ? val.trim() : val;
    } else {
      p.add(`${name}.${k}`, undefined, `expected ${expected.value}, got ${JSON.stringify(val)}`);
    }
  }
  return out;
}

/**
 * Secrets to redact, even when other settings are invalid: each value as used (trimmed: CI secrets often end
 * in a newline; the whitespace around it is not part of it), without quotes around it, and each of those as
 * it reads inside JSON text.
 */
export function rawStrings(values: unknown[]): string[] {
  const forms = new Set<string>();
  for (const v of values) {
    if (typeof v !== 'string') continue;
    for (const s of [v.trim(), v.trim().replace(/^(["'])(.*)\1$/s, '$2')]) {
      forms.add(s);
      forms.add(JSON.stringify(s).slice(1, -1));
      // As other JSON encoders write it (a service echoing it back): `/` as `\/` (PHP, some Java), and the
      // signs an HTML-safe encoder escapes as `\u00XX` (Gson's default writes `=` as `\u003d`). A message made
      // from the parsed body is redacted again, whatever the escapes (http/exchange.ts).
      forms.add(s.replace(/\//g, '\\/'));
      forms.add(s.replace(/[<>&=']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    }
  }
  return [...forms];
}
