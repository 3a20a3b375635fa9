/**
 * Shapes of the module's 4xx bodies. The service has no published error format and, per field evidence, mixes
 * several: JSON:API error objects, devise's `{"errors":["…"]}` (strings), `{"error":"…"}`, plain text and empty
 * bodies. Handlers always build one shape (JSON:API, or devise on sign-in); `restyle` converts the final answer
 * to the configured style so that client tests can meet every shape on every route. Messages never contain
 * credentials (handlers do not echo them), whatever the style.
 */
import type { SandboxResponse } from '../types';
import { errorStyleFor, type ErrorBodyStyles } from './settings';

/** devise_token_auth's sign-in failure text, as real clients have seen it. */
export const DEVISE_BAD_CREDENTIALS = 'Invalid login credentials. Please try again.';

const PLAIN_JSON = 'application/json; charset=utf-8';

/** `{"errors":["…"]}` — devise's shape (strings, not objects). */
export function deviseError(status: number, message: string, route: string): SandboxResponse {
  return { status, route, body: { errors: [message] }, headers: { 'content-type': PLAIN_JSON } };
}

/** The human-readable messages of an error body in either native shape. */
function messagesOf(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e) => {
    if (typeof e === 'string') return e;
    const { detail, title } = (e ?? {}) as { detail?: unknown; title?: unknown };
    return String(detail ?? title ?? '');
  });
}

/** The answer with its 4xx body in the configured style (`jsonapi` keeps the native body). */
export function restyle(answer: SandboxResponse, styles: ErrorBodyStyles): SandboxResponse {
  if (answer.status < 400 || answer.status >= 500) return answer;
  const style = errorStyleFor(styles, answer.status);
  if (style === 'jsonapi') return answer;
  const message = messagesOf(answer.body).join('; ');
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'content-type'));
  switch (style) {
    case 'devise':
      return { ...answer, body: { errors: messagesOf(answer.body) }, headers: { ...headers, 'content-type': PLAIN_JSON } };
    case 'error-key':
      return { ...answer, body: { error: message }, headers: { ...headers, 'content-type': PLAIN_JSON } };
    case 'text':
      return { ...answer, body: message, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' } };
    case 'empty':
      return { ...answer, body: undefined, headers };
  }
}
