import { BadResponseError } from '../../http/errors';

/** A job's state as `GET jobprogress/{token}` answers it, normalised. */
export interface JobProgress {
  progress?: number;
  message?: string;
  summaryMessage?: string;
  errorMessage?: string | null;
}

/**
 * The job token of an async endpoint's answer (field evidence): the raw body text (Cloud), a JSON
 * string, or `{"jobProgressToken": …}` (Server). Undefined when the body is none of these.
 */
export function parseJobToken(text: string): string | undefined {
  let token = text.trim();
  if (token.startsWith('"') || token.startsWith('{')) {
    try {
      const v = JSON.parse(token) as unknown;
      const t = typeof v === 'string' ? v : v && typeof v === 'object' ? (v as { jobProgressToken?: unknown }).jobProgressToken : undefined;
      token = typeof t === 'string' || typeof t === 'number' ? String(t).trim() : '';
    } catch {
      return undefined;
    }
  }
  // It becomes a path segment: an HTML page or a JSON error body is not a token.
  return token && !/[\s<>{}[\]"]/.test(token) ? token : undefined;
}

/**
 * `progress` is a fraction (number or numeric string, "1.0" when done); a non-empty `errorMessage`
 * means the job failed. `message` is passed on as text and never decides anything.
 */
export function normalizeJobProgress(value: unknown): JobProgress {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new BadResponseError(
      'Zephyr',
      200,
      `Zephyr answered GET /jobprogress with ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value} where a job object was expected.`,
    );
  const p = value as Record<string, unknown>;
  const progress =
    typeof p.progress === 'number'
      ? p.progress
      : typeof p.progress === 'string' && p.progress.trim() !== ''
        ? Number(p.progress)
        : undefined;
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : v === undefined || v === null ? undefined : JSON.stringify(v);
  const error = text(p.errorMessage)?.trim();
  return {
    ...(p as object),
    progress: progress !== undefined && Number.isFinite(progress) ? progress : undefined,
    message: text(p.message),
    summaryMessage: text(p.summaryMessage),
    errorMessage: error && error !== '""' && error !== '[]' && error !== '{}' ? error : null,
  };
}

/** Done when `progress` reached 1 (a failed job is reported by jobFailed first). */
export const jobDone = (p: JobProgress): boolean => Number(p.progress ?? 0) >= 1;

/** The job's own error message, when it failed. */
export const jobFailed = (p: JobProgress): string | undefined => p.errorMessage ?? undefined;

/** A JSON list `field` of a job's message, as strings; undefined when the message has none (plain text). */
function listIn(message: string | undefined, field: string): string[] | undefined {
  try {
    const list = (JSON.parse(message ?? '') as Record<string, unknown> | null)?.[field];
    return Array.isArray(list) ? list.map(String) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keys an add-tests job reports as not added (unknown, or not Test issues). The wording of the
 * message is not documented: read a JSON `invalid` list if present, else the keys named after
 * "invalid"/"not found" in the same sentence. Only words a rejection: whether a key is in the cycle is
 * read from the cycle, never from this.
 */
export function parseAddJobMessage(message: string | undefined): string[] {
  const listed = listIn(message, 'invalid');
  if (listed || !message) return listed ?? [];
  const m = /(?:invalid|not found|not a test)[^:.]*:\s*([A-Z0-9_,\s-]+)/i.exec(message);
  return m ? (m[1].match(/[A-Z][A-Z0-9_]*-\d+/g) ?? []) : [];
}

/**
 * Execution ids a bulk status job says it could not find (an execution removed from the cycle since it was
 * read): a JSON `notFound` list when the message has one. Production's wording is not established; a message
 * without such a list names none, and the read-back's counts are the check then.
 */
export const parseBulkJobMessage = (message: string | undefined): string[] => listIn(message, 'notFound') ?? [];

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
