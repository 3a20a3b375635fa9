/**
 * Options as a table: one row per option (its env var, how a value is read, its default), read by one function,
 * `readFields`: the option, else the env var, else the default. Each problem is one line naming the option and
 * the env var. Hand-written rather than a schema library: the reading around the check (precedence, empty is
 * unset, a value or default on failure, the wording) is most of it, and zod alone doubles the reporter's load time.
 */

import { isLoopbackHost } from '../http/redirects';
import { OUTCOMES, type Outcome } from '../shared/model';

export type Env = Record<string, string | undefined>;

export class Problems {
  readonly lines: string[] = [];
  add(option: string, envVar: string | undefined, message: string): void {
    const where = envVar ? `${option} (env ${envVar})` : option;
    this.lines.push(`${where}: ${message}`);
  }
}

/** How one option is read. */
export interface Field<T> {
  env?: string;
  default: T;
  /** The setting a given value makes, or undefined once `problem` was told why not (the default is used). */
  read(value: unknown, problem: (message: string, subKey?: string) => void): T | undefined;
  /** Absent, it is reported as required (a string: where to find it). */
  required?: true | string;
  /** Redacted from everything printed or written, even when other settings are invalid. */
  secret?: boolean;
}
type Fields = Record<string, Field<unknown>>;
/** Exactly one row per key of an options type. */
export type FieldsOf<O> = { [K in keyof Required<O>]: Field<unknown> };
type ValueOf<F> = F extends Field<infer T> ? T : never;
/** What a table reads: a setting per row, optional where it may be absent. */
export type Values<F> = { [K in keyof F as undefined extends ValueOf<F[K]> ? never : K]: ValueOf<F[K]> } & {
  [K in keyof F as undefined extends ValueOf<F[K]> ? K : never]?: ValueOf<F[K]>;
};

/** The option, else the env var (trimmed). Empty strings count as unset. */
function given(option: unknown, env: Env, envVar: string | undefined): unknown {
  if (option !== undefined && option !== null && option !== '') return option;
  return envVar ? env[envVar]?.trim() || undefined : undefined;
}

/** One option: `name` is how the user writes it (`zephyr.projectId`). */
export function readField<T>(p: Problems, name: string, field: Field<T>, option: unknown, env: Env): T {
  const value = given(option, env, field.env);
  let reported = false;
  const problem = (message: string, subKey?: string) => {
    reported = true;
    p.add(subKey ? `${name}.${subKey}` : name, subKey ? undefined : field.env, message);
  };
  const read = value === undefined ? undefined : field.read(value, problem);
  if (field.required && read === undefined && !reported)
    p.add(name, field.env, `is required${typeof field.required === 'string' ? ` (${field.required})` : ''}`);
  return read === undefined ? field.default : read;
}

/**
 * Every row of `fields` from `options` (keys named `${prefix}${key}`) and `env`. With `enabledBy`: undefined,
 * and nothing else read or reported, when none of those rows is given (a service without credentials is off).
 */
export function readFields<F extends Fields>(
  p: Problems,
  fields: F,
  options: Record<string, unknown>,
  env: Env,
  prefix = '',
  enabledBy: readonly (keyof F & string)[] = [],
): Values<F> | undefined {
  if (enabledBy.length && !enabledBy.some((k) => given(options[k], env, fields[k].env) !== undefined)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) out[key] = readField(p, prefix + key, field, options[key], env);
  return out as Values<F>;
}

/** The secret rows' values as given, longest first (a shorter one inside a longer one must not leave the rest showing). */
export function secretsOf(fields: Fields, options: Record<string, unknown>, env: Env): string[] {
  const values = Object.entries(fields).flatMap(([key, f]) => (f.secret ? [options[key], f.env ? env[f.env] : undefined] : []));
  return rawStrings(values).sort((a, b) => b.length - a.length);
}

// ------------------------------------------------------------------ kinds of rows

type StrOpts = { default?: string; required?: true | string; secret?: boolean };
/** A string, trimmed; empty is unset. */
export function str<O extends StrOpts>(
  env?: string,
  o?: O,
): Field<O extends { default: string } | { required: unknown } ? string : string | undefined> {
  return { env, default: o?.required ? '' : undefined, ...o, read: readString } as Field<string>;
}
function readString(value: unknown, problem: (m: string) => void): string | undefined {
  if (typeof value !== 'string') return void problem(`expected a string, got ${typeof value}`);
  return value.trim() || undefined;
}

/** A whole number (a number, or digits in a string) ≥ `min`. */
export function int<O extends { default?: number; required?: true | string }>(
  env: string,
  min: number,
  o?: O,
): Field<O extends { default: number } | { required: unknown } ? number : number | undefined> {
  return {
    env,
    default: o?.default ?? (o?.required ? 0 : undefined),
    ...o,
    read(value: unknown, problem: (m: string) => void) {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : NaN;
      if (Number.isSafeInteger(n) && n >= min) return n;
      problem(`expected a whole number ≥ ${min}, got ${JSON.stringify(value)}`);
    },
  } as Field<number>;
}

/**
 * true/false (or 1/0, yes/no, on/off). A value that is neither is reported and taken as the default, or as
 * `unreadable` where the safe reading of a switch clearly meant to be set differs (a misspelt dry run must not publish).
 */
export function bool(env: string | undefined, fallback: boolean, unreadable?: { value: boolean; because: string }): Field<boolean> {
  return {
    env,
    default: fallback,
    read(value, problem) {
      if (typeof value === 'boolean') return value;
      const s = String(value).trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(s)) return true;
      if (['0', 'false', 'no', 'off'].includes(s)) return false;
      problem(`expected true/false (or 1/0), got ${JSON.stringify(value)}${unreadable ? `; ${unreadable.because}` : ''}`);
      return unreadable?.value;
    },
  };
}

/** One of a fixed set of words (case-insensitive). */
export function choice<T extends string>(env: string, choices: readonly T[], fallback: T): Field<T> {
  return {
    env,
    default: fallback,
    read(value, problem) {
      const raw = readString(value, problem);
      const found = choices.find((c) => c === raw?.toLowerCase());
      if (raw && !found) problem(`expected one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
      return found;
    },
  };
}

/**
 * An http(s) URL without a trailing slash. `credentials`: every request to it carries them, so plain http is
 * taken for a local host only (the sandbox: loopback, or a name without a dot as in a compose network).
 */
export function url<D extends string | undefined = undefined>(
  env: string,
  fallback?: D,
  { credentials = false, required }: { credentials?: boolean; required?: true } = {},
): Field<string | D> {
  return {
    env,
    default: fallback as D,
    required,
    read(value, problem) {
      const raw = readString(value, problem);
      if (raw === undefined) return undefined;
      let u: URL;
      try {
        u = new URL(raw);
      } catch {
        return void problem(`expected an http(s) URL, got "${raw}"`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problem(`expected an http(s) URL, got "${raw}"`);
      else if (u.search || u.hash) problem(`must not contain a query or fragment, got "${raw}"`);
      else if (credentials && u.protocol === 'http:' && !isLocalHost(u.hostname))
        problem(
          `plain http to ${u.hostname} would send the credentials unencrypted: use https (http is taken for a local host only, such as the sandbox), got "${raw}"`,
        );
      else return raw.replace(/\/+$/, '');
    },
  };
}

/** This machine, or a name without a dot (a service in a compose network): never a host across the internet. */
function isLocalHost(hostname: string): boolean {
  return isLoopbackHost(hostname) || !/[.:]/.test(hostname.replace(/^\[|\]$/g, ''));
}

export type Rate = { count: number; windowMs: number };
/** `N/SECONDS` such as `200/60`; `off` (null): no client-side pacing. */
export function rate<D extends Rate | undefined = undefined>(env: string, fallback?: D): Field<Rate | null | D> {
  return {
    env,
    default: fallback as D,
    read(value, problem) {
      const s = String(value).trim().toLowerCase();
      if (s === 'off' || s === 'none' || s === '0') return null;
      const m = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(s);
      if (m && Number(m[1]) >= 1 && Number(m[2]) > 0) return { count: Number(m[1]), windowMs: Math.round(Number(m[2]) * 1000) };
      problem(`expected N/SECONDS such as 200/60 (or "off"), got ${JSON.stringify(value)}`);
    },
  };
}

/** Playwright outcome -> service status, by id or by name. `timedOut` defaults to the `failed` row. */
export type StatusMapOption = Partial<Record<Outcome, number | string>>;

/**
 * A `statusMap` (no env var): known outcomes only, each mapped to a status id or a non-empty name. With
 * `names`: the service's statuses are a fixed vocabulary, so a name it does not have is refused here like a
 * typo in an outcome key (the target is held back and its results kept for replay), never sent as a default.
 */
export function statusMap(
  /** What a value is, in the service's terms (CucumberStudio's statuses have names only). */
  expected = { value: 'a status id or name', example: `{ failed: 'FAIL' }` },
  names?: { service: string; names: readonly string[] },
): Field<StatusMapOption> {
  return {
    default: {},
    read(v, problem) {
      if (!isPlainObject(v)) return void problem(`expected an object such as ${expected.example}`);
      const out: StatusMapOption = {};
      for (const [k, val] of Object.entries(v)) {
        const ref = typeof val === 'string' ? val.trim() : val;
        if (!(OUTCOMES as readonly string[]).includes(k)) problem(`unknown outcome; use one of ${OUTCOMES.join(', ')}`, k);
        else if (!((typeof ref === 'number' && Number.isInteger(ref)) || (typeof ref === 'string' && ref !== '')))
          problem(`expected ${expected.value}, got ${JSON.stringify(val)}`, k);
        else if (names && !names.names.includes(String(ref).toLowerCase()))
          problem(`${names.service} has no status ${JSON.stringify(ref)}; use one of ${names.names.join(', ')}`, k);
        else out[k as Outcome] = ref;
      }
      return out;
    },
  };
}

// ------------------------------------------------------------------ the options object itself

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
