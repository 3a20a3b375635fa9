/** Typed transport errors. Messages never contain headers, tokens or keys. */
import { MAX_REDIRECTS } from './redirects';

/** The service answered with a non-2xx status. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly service: string,
    readonly method: string,
    /** Path + query, no origin; never contains credentials. */
    readonly path: string,
    readonly status: number,
    readonly headers: Record<string, string>,
    /** Body text (truncated). */
    readonly bodyText: string,
    message: string,
  ) {
    super(message);
  }
}

/** No (whole) answer: connection refused/reset, DNS, timeout. The request may or may not have been applied. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  /** `host:port` asked, when known (no path, no credentials). */
  readonly host?: string;
  /** The answer had begun (status and headers came) when the connection failed: the service was there. */
  readonly answered: boolean;
  constructor(
    readonly service: string,
    readonly method: string,
    readonly path: string,
    readonly code: string,
    options?: { cause?: unknown; host?: string; answered?: boolean },
  ) {
    super(
      `${service}: ${method} ${path} failed: ${describeCode(code)}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.host = options?.host;
    this.answered = options?.answered ?? false;
  }

  /** What went wrong in a few words ("connection refused", "no answer within the request timeout"). */
  get what(): string {
    return shortCode(this.code);
  }
}

/**
 * A redirect that was not followed: more than MAX_REDIRECTS hops, or a target the rules refuse (not
 * https and not this machine). Names only the target's origin; nothing was sent there.
 */
export class RedirectError extends Error {
  override readonly name = 'RedirectError';
  constructor(
    readonly service: string,
    readonly method: string,
    /** Path + query of the hop that answered with the redirect. */
    readonly path: string,
    readonly reason: 'too-many' | 'refused' | 'foreign',
    /** Origin of the Location (scheme://host:port), never its path or query. */
    readonly location: string,
  ) {
    const what = `${service}: ${method} ${path.split('?')[0]}`;
    super(
      reason === 'too-many'
        ? `${what} was redirected more than ${MAX_REDIRECTS} times (the last hop to ${location}); configure the service's final URL directly.`
        : reason === 'refused'
          ? `${what} was redirected to ${location}, which is neither https nor this machine; not followed (no credentials were sent there). Check the configured base URL.`
          : `${what} was redirected to ${location}, which is not one of ${service}'s own addresses; not followed (no credentials were sent there). If it is the service's new address, configure it as the base URL.`,
    );
  }
}

/** An answer that is not what the API sends (HTML error page, truncated JSON, …). */
export class BadResponseError extends Error {
  override readonly name = 'BadResponseError';
  constructor(
    readonly service: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const REFUSED = ['connection refused', 'connection refused (is the service URL right, and is it up?)'] as const;
const RESET = ['connection reset', 'connection reset by the server'] as const;
const NOT_FOUND = ['host not found', 'host not found (check the base URL)'] as const;
const TIMED_OUT = ['no answer within the request timeout', 'timed out'] as const;

/** A failure code's words: [few, for `what`; a message's, saying what to check]. EPIPE is only ever short. */
const CODE_WORDS: Record<string, readonly [string, string]> = {
  ECONNREFUSED: REFUSED,
  ECONNRESET: RESET,
  UND_ERR_SOCKET: RESET,
  EPIPE: [RESET[0], 'EPIPE'],
  ENOTFOUND: NOT_FOUND,
  EAI_AGAIN: NOT_FOUND,
  UND_ERR_HEADERS_TIMEOUT: TIMED_OUT,
  UND_ERR_BODY_TIMEOUT: TIMED_OUT,
  UND_ERR_CONNECT_TIMEOUT: TIMED_OUT,
  ETIMEDOUT: TIMED_OUT,
};

const describeCode = (code: string): string => CODE_WORDS[code]?.[1] ?? code;
const shortCode = (code: string): string => CODE_WORDS[code]?.[0] ?? code;

/** Replaces every secret occurrence in a text (for logs, errors, files). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // (The look before each replacement: every test's title and error pass here, and most hold no secret.)
  for (const s of secrets) if (s && s.length >= 4 && out.includes(s)) out = out.split(s).join('[redacted]');
  // JWTs of any origin (e.g. echoed by a proxy) are never shown either.
  return out.includes('eyJ') ? out.replace(/eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, '[redacted-jwt]') : out;
}

/** An HTML page where an API answer was expected (proxy error page, login page, wrong base URL). */
export function looksLikeHtml(text: string): boolean {
  return /^\s*<(!doctype|html|head|body|\?xml)/i.test(text);
}

/**
 * Adds what to check to a 4xx from a lookup of a configured id (project, version, cycle, run), keeping
 * the type so the retry policy still sees the status.
 */
export async function withHint<T>(work: Promise<T>, hint: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    // A message that names the setting already (a target's own sentence) needs no second hint.
    const named = error instanceof Error && error.message.includes(hint.split(/\s/)[0]);
    if (error instanceof HttpError && !named && error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 429) {
      throw new HttpError(
        error.service,
        error.method,
        error.path,
        error.status,
        error.headers,
        error.bodyText,
        `${error.message.replace(/[.\s]+$/, '')} — check ${hint}`,
      );
    }
    throw error;
  }
}
