/**
 * The service's own words from an error body, whatever its shape. Field evidence: bodies vary between
 * JSON:API `errors` objects, devise string arrays, `{"error": …}`, ZAPI envelopes, plain text and
 * nothing at all — and the user needs what the service said, not "HTTP 401".
 *
 * Knows no secrets: callers pass text that went through `redact` first (redacting before cutting, so a
 * secret cannot survive half-cut at the cap).
 */
import { looksLikeHtml } from './errors';

/** Longest text returned: enough for a sentence or two, short enough for one log line. */
export const WORDS_MAX = 300;

/** Plain-text lines kept: proxies and frameworks put the message first and a trace after it. */
const TEXT_LINES = 3;

/** Fields read from a JSON object, in order: JSON:API / Rails, then ZAPI (Cloud and Server), then generic. */
const FIELDS = [
  'errors',
  'error',
  'clientMessage',
  'errorDesc',
  'errorMessages',
  'message',
  'error_description',
  'detail',
  'title',
] as const;

export function serviceWords(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').replace(/^\uFEFF/, '').trim();
  if (!trimmed || isHtml(trimmed)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return cap(firstLines(trimmed));
  }
  if (parsed !== null && typeof parsed === 'object') return cap(fromValue(parsed, 0));
  // A JSON string is a message; a bare number or boolean is as good as plain text.
  return cap(typeof parsed === 'string' ? parsed : trimmed);
}

/** HTML anywhere near the top: an error page, never the service's words (callers say "an HTML page"). */
function isHtml(text: string): boolean {
  return looksLikeHtml(text) || /<\/?(html|body|head|title|h1|div|p)\b[^>]*>/i.test(text.slice(0, 500));
}

function fromValue(value: unknown, depth: number): string | undefined {
  if (depth > 3 || value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value.trim() || undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return undefined;
  if (Array.isArray(value)) {
    const parts = value.map((v) => fromValue(v, depth + 1)).filter((v): v is string => !!v);
    return parts.length ? [...new Set(parts)].join('; ') : undefined;
  }
  const o = value as Record<string, unknown>;
  for (const f of FIELDS) {
    const said =
      f === 'errors' && isFieldMap(o.errors)
        ? fieldMap(o.errors)
        : f === 'error' || f === 'errors'
          ? fromValue(o[f], depth + 1)
          : scalar(o[f]);
    if (said) return said;
  }
  return undefined;
}

/** Message-ish fields hold a string (or, for ZAPI `errorMessages`, a list of them). */
function scalar(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (Array.isArray(v)) return fromValue(v, 1);
  return undefined;
}

/** Rails validation errors: `{"errors": {"name": ["can't be blank"]}}`. */
function isFieldMap(v: unknown): v is Record<string, unknown> {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  // An object carrying a message itself is one error, not a map of fields.
  return !FIELDS.some((f) => f in o) && Object.values(o).some((x) => typeof x === 'string' || Array.isArray(x));
}

function fieldMap(o: Record<string, unknown>): string | undefined {
  const parts = Object.entries(o)
    .map(([k, v]) => {
      const said = fromValue(v, 2);
      return said ? `${k} ${said}` : undefined;
    })
    .filter((v): v is string => !!v);
  return parts.length ? parts.join('; ') : undefined;
}

function firstLines(text: string): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, TEXT_LINES)
    .join(' ');
}

/** One line, no control characters or ANSI colours, at most WORDS_MAX characters. */
function cap(text: string | undefined): string | undefined {
  if (!text) return undefined;
  // eslint-disable-next-line no-control-regex
  const line = text
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!line) return undefined;
  return line.length > WORDS_MAX ? `${line.slice(0, WORDS_MAX - 1).trimEnd()}…` : line;
}
