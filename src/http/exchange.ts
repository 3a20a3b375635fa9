/**
 * The one JSON exchange both service clients use: send, then turn anything but a readable 2xx into a
 * typed error whose message says what to check. The services differ only in their message tables.
 */
import type { HttpRequest, HttpResponse, HttpSend } from './client';
import { BadResponseError, HttpError, looksLikeHtml, redact } from './errors';
import { serviceWords } from './words';

/** What a message table gets to choose its sentence from. Everything in it is already redacted. */
export interface ErrorFacts {
  service: string;
  method: string;
  /** Path + query below the origin, as the client built it. */
  path: string;
  /** `METHOD /path` without the query, for messages. */
  where: string;
  status: number;
  headers: Record<string, string>;
  /** Body text, redacted (not truncated). */
  text: string;
  /** The body parsed, when it is JSON. */
  json?: unknown;
  /** The service's own words (see serviceWords), redacted; undefined when it said nothing readable. */
  said?: string;
  /** The body is an HTML page (proxy, login page, wrong base URL). */
  html: boolean;
}

/** Status + context → the actionable sentence; undefined falls back to the generic one. */
export type MessageTable = (facts: ErrorFacts) => string | undefined;

export interface JsonExchangeOptions {
  service: string;
  /** The lane-free single exchange; the caller wraps calls in its lane. */
  send: HttpSend;
  messages: MessageTable;
  secrets: readonly string[];
  /** What a 2xx body must be, for messages ("JSON", "a JSON:API document"). */
  expected?: string;
}

const redactWords = (said: string | undefined, secrets: readonly string[]) => (said === undefined ? undefined : redact(said, secrets));

/** `(401: words)`-style suffix: the service's words when it said any. */
export const saidIn = (f: ErrorFacts): string => (f.said ? `: ${f.said}` : '');

const BODY_KEPT = 2_000;

/** The error for a non-2xx answer: table message (or the generic one), redacted body and headers kept for the retry policy. */
export function httpError(
  o: Pick<JsonExchangeOptions, 'service' | 'messages' | 'secrets'>,
  method: string,
  path: string,
  res: HttpResponse,
): HttpError {
  const text = redact(res.text, o.secrets);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const facts: ErrorFacts = {
    service: o.service,
    method,
    path,
    where: `${method} ${path.split('?')[0]}`,
    status: res.status,
    headers: res.headers,
    text,
    json,
    // Parsing unescapes what the raw text had escaped in some other way: the words are redacted again.
    said: redactWords(serviceWords(text), o.secrets),
    html: looksLikeHtml(text),
  };
  const message = redact(o.messages(facts) ?? genericMessage(facts), o.secrets);
  return new HttpError(o.service, method, path, res.status, res.headers, text.slice(0, BODY_KEPT), message);
}

function genericMessage(f: ErrorFacts): string {
  const head = `${f.service} answered ${f.where} with HTTP ${f.status}`;
  if (f.status >= 300 && f.status < 400) {
    const to = originOf(f.headers.location);
    return `${head}, a redirect${to ? ` to ${to}` : ''} that is not followed: configure the URL the service moved to.`;
  }
  if (f.said) return `${head}: ${f.said}.`.replace(/([.!?])\.$/, '$1');
  if (f.html) return `${head} and an HTML page instead of JSON.`;
  const excerpt = f.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return excerpt ? `${head}: ${excerpt}.` : `${head} and an empty body.`;
}

/** The origin of an absolute Location (never its path or query, which may carry tokens). */
function originOf(location: string | undefined): string | undefined {
  if (!location || !/^https?:\/\//i.test(location)) return undefined;
  try {
    return new URL(location).origin;
  } catch {
    return undefined;
  }
}

/** Parses a 2xx body; empty, HTML or unparsable is a BadResponseError saying which. */
export function parseAnswer<T>(service: string, method: string, path: string, res: HttpResponse, expected = 'JSON'): T {
  const where = `${method} ${path.split('?')[0]}`;
  if (res.text.trim() === '')
    throw new BadResponseError(
      service,
      res.status,
      `${service} answered ${where} with an empty body (HTTP ${res.status}) where ${expected} was expected.`,
    );
  try {
    return JSON.parse(res.text) as T;
  } catch {
    const kind = looksLikeHtml(res.text) ? 'an HTML page' : 'text that is not valid JSON (truncated?)';
    throw new BadResponseError(
      service,
      res.status,
      `${service} answered ${where} with ${kind} (HTTP ${res.status}) where ${expected} was expected.`,
    );
  }
}

/** One service's exchange: `text` for bodies read as text (job tokens), `json` for everything else. */
export class JsonExchange {
  constructor(private readonly o: JsonExchangeOptions) {}

  /** One exchange, no retry. `path` is what messages show (no origin). Returns the 2xx answer. */
  async text(req: HttpRequest, path: string): Promise<HttpResponse> {
    const res = await this.o.send(this.o.service, req);
    if (res.status < 200 || res.status >= 300) throw httpError(this.o, req.method, path, res);
    return res;
  }

  /** One exchange, no retry; the 2xx body parsed. */
  async json<T>(req: HttpRequest, path: string): Promise<T> {
    return this.parse<T>(req.method, path, await this.text(req, path));
  }

  parse<T>(method: string, path: string, res: HttpResponse): T {
    return parseAnswer<T>(this.o.service, method, path, res, this.o.expected);
  }
}
