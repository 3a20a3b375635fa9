import type { SandboxResponse } from '../types';

/**
 * Error codes (wire reference §5). 104 and 151 are production's; the others are the local
 * allocation the reference suggests.
 */
export const ERR = {
  generic: 100,
  internal: 104,
  missing: 151,
  invalid: 152,
  notFound: 160,
} as const;

/** The §5 envelope; the core adds `content-type: application/json;charset=UTF-8` for object bodies. */
export function errorResponse(status: number, clientMessage: string, errorCode: number, route: string): SandboxResponse {
  return { status, route, body: { errorType: 'ERROR', clientMessage, errorCode } };
}

/** Thrown by handlers; turned into the §5 envelope by the router. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errorCode: number = status === 400 ? ERR.generic : status,
  ) {
    super(message);
  }
}

export const missing = (name: string): ApiError => new ApiError(400, `Missing parameter: ${name}`, ERR.missing);
export const invalid = (name: string, value: unknown): ApiError =>
  new ApiError(400, `Invalid value for parameter ${name}: ${JSON.stringify(value)}`, ERR.invalid);
export const notFound = (message: string): ApiError => new ApiError(400, message, ERR.notFound);

/**
 * A Jira id (projectId, versionId, issueId): a JSON integer or a numeric string (`"10000"`, `"-1"`).
 * Returns undefined when absent (undefined, null or ''); throws 152 when present but not numeric.
 */
export function optionalJiraId(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim())) return Number(value.trim());
  throw invalid(name, value);
}

/** Like optionalJiraId, but missing → 400 errorCode 151 `Missing parameter: <name>`. */
export function requiredJiraId(value: unknown, name: string): number {
  const id = optionalJiraId(value, name);
  if (id === undefined) throw missing(name);
  return id;
}

/** A Zephyr id (cycle, execution): a non-empty string (numbers are tolerated and stringified). */
export function optionalZephyrId(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw invalid(name, value);
}

/** Optional text field of a body: strings pass, numbers are stringified, anything else is 152. */
export function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw invalid(name, value);
}

/** The JSON body as an object ({} when absent); a non-object JSON body is 400. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'Request body must be a JSON object', ERR.generic);
  return body as Record<string, unknown>;
}

/** Non-negative integer query parameter with a default. */
export function queryInt(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  if (!/^\d{1,9}$/.test(raw.trim())) throw invalid(name, raw);
  return Number(raw.trim());
}
