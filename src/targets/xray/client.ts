import { BadResponseError, HttpError, redact } from '../../http/errors';
import type { HttpRequest, HttpSend } from '../../http/client';
import { JsonExchange } from '../../http/exchange';
import type { RequestLane } from '../../kit/lane';
import type { XrayConfig } from './config';
import { xrayMessages } from './errors';

/** Forwarded along redirects to Xray's own hosts only. */
const CREDENTIAL_HEADERS = ['Authorization'] as const;
const HOMES = ['xray.cloud.getxray.app', 'us.xray.cloud.getxray.app', 'eu.xray.cloud.getxray.app', 'au.xray.cloud.getxray.app'] as const;
/** A token is a JWT: three base64url parts (an HTML page or an object is a wrong base URL, not a token). */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** Tokens last 24 h (§2.3); a new one is asked for before, so a long replay never meets an expired one. */
const TOKEN_MAX_AGE_MS = 23 * 3_600_000;

/** The Cloud import answer (§3.2): the Test Execution issue; a 200 without `key` is a failure. */
export interface ImportAnswer {
  id?: string;
  key?: string;
  self?: string;
}

type ImportBody = { testExecutionKey: string; tests: unknown[] };

interface Token {
  value: string;
  /** When it came, on our clock (the service's clock may differ: only the token's own lifetime is used). */
  at: number;
  renewAfterMs: number;
}

/** What a call's slot did: the answer, a 401 (the token refused; renew once), or the authentication. */
type Outcome<T> = { answer: T } | { refused: { token: Token; error: HttpError } } | { renewed: true };

/** Authentications one call may carry because its token aged while it waited (then it sends whatever it has). */
const MAX_RENEWALS_PER_CALL = 3;

/**
 * How long a token is used: its lifetime by its own claims (`exp − iat`, 24 h documented, §2.3), less the second
 * `iat` loses to rounding and a margin for the way there (1/24: 23 h of 24); TOKEN_MAX_AGE_MS at most. A token
 * without readable claims is opaque (§2.3): TOKEN_MAX_AGE_MS, and a 401 says when it ended.
 */
export function renewAfterMs(token: string): number {
  let lifetimeMs: number | undefined;
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { iat?: unknown; exp?: unknown };
    if (typeof claims.iat === 'number' && typeof claims.exp === 'number' && claims.exp > claims.iat)
      lifetimeMs = (claims.exp - claims.iat) * 1000;
  } catch {
    // Not JSON claims: opaque.
  }
  if (lifetimeMs === undefined) return TOKEN_MAX_AGE_MS;
  return Math.min(TOKEN_MAX_AGE_MS, Math.max(lifetimeMs / 2, lifetimeMs - 1000 - lifetimeMs / 24));
}

/** A GraphQL answer that carried `errors` (§0.5): the call failed, in the service's words. */
export class GraphQLCallError extends BadResponseError {}

/**
 * Xray Cloud's wire: one token at a time per process (authenticated lazily, shared by every call, read when a call
 * leaves; a new one before it ages out, and once after a 401), REST imports, GraphQL and authentication through the
 * one lane, since they share one request budget (§7).
 */
export class XrayClient {
  private readonly http: JsonExchange;
  /** The current token; `renewing` while a call's slot asks for a new one. */
  private token?: Token;
  private renewing?: Promise<Token>;
  /** Redacted from every message: the configured ones, and each token as it comes. */
  private readonly secrets: string[];

  constructor(
    private readonly cfg: Pick<XrayConfig, 'baseUrl' | 'clientId' | 'clientSecret'>,
    private readonly lane: RequestLane,
    send: HttpSend,
    secrets: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    this.secrets = [...secrets];
    this.http = new JsonExchange({ service: 'Xray', send, messages: xrayMessages(cfg.baseUrl), secrets: this.secrets, expected: 'JSON' });
  }

  /** GraphQL, with the lane's retry policy (reads, and writes safe to repeat). `errors` in a 200 answer fail the call. */
  graphql<T>(label: string, query: string, variables: Record<string, unknown>): Promise<T> {
    return this.lane.retry(label, () => this.graphqlOnce<T>(label, query, variables));
  }

  /** One GraphQL call (no retry beyond the one new token after a 401): creates go through find-or-create. */
  async graphqlOnce<T>(label: string, query: string, variables: Record<string, unknown>): Promise<T> {
    const answer = await this.authorized<{ data?: T; errors?: Array<{ message?: string }> }>(label, '/graphql', { query, variables });
    if (answer.errors?.length || !answer.data) {
      const words =
        (answer.errors ?? [])
          .map((e) => e.message ?? '')
          .filter(Boolean)
          .join('; ') || 'no data';
      throw new GraphQLCallError('Xray', 200, redact(`Xray GraphQL ${label} failed: ${words.slice(0, 300)}`, this.secrets));
    }
    return answer.data;
  }

  /**
   * `POST /import/execution` into an existing Test Execution: per Test an upsert (§8.1 rule 2), so repeating it
   * after an ambiguous failure is safe. The answer must name the execution.
   */
  importExecution(body: ImportBody | ((mayHaveApplied: boolean) => ImportBody), label = 'import'): Promise<ImportAnswer> {
    // A function builds each attempt's body: one that carries files sends them again only if no earlier attempt may have applied.
    return this.lane.retry(label, async (_attempt, mayHaveApplied) => {
      const sent = typeof body === 'function' ? body(mayHaveApplied) : body;
      const answer = await this.authorized<ImportAnswer>(label, '/import/execution', sent);
      if (!answer || typeof answer.key !== 'string')
        throw new BadResponseError(
          'Xray',
          200,
          `Xray answered POST /import/execution without a Test Execution key (nothing is taken as imported).`,
        );
      return answer;
    });
  }

  /**
   * A call with the bearer token current when its lane slot is granted — not when it asked: a call may wait in
   * the lane (pacing, a 429 pause) longer than a token lives. A slot that finds no token fit to send (none yet,
   * aged, or the one a 401 refused) carries the authentication instead, and the call asks for another slot: one
   * request per slot, and authentication never waits for a slot of its own (a `lane.send` inside a `lane.send`
   * deadlocks once every slot is held by a call waiting for the token). A 401 renews the token once; a second
   * 401 is final.
   */
  private async authorized<T>(label: string, path: string, body: unknown): Promise<T> {
    let refused: { token: Token; error: HttpError } | undefined;
    let renewals = 0;
    for (;;) {
      const outcome = await this.lane.send(label, async (): Promise<Outcome<T>> => {
        const token = await this.tokenForSlot(refused?.token, renewals >= MAX_RENEWALS_PER_CALL);
        if (!token) return { renewed: true };
        if (token === refused?.token) throw refused.error; // renewals spent on aged tokens: the 401 stands
        try {
          return { answer: await this.http.json<T>(this.request(path, body, token.value), `/api/v2${path}`) };
        } catch (error) {
          if (refused || !(error instanceof HttpError) || error.status !== 401) throw error;
          return { refused: { token, error } };
        }
      });
      if ('answer' in outcome) return outcome.answer;
      if ('refused' in outcome) refused = outcome.refused;
      else renewals++;
    }
  }

  /**
   * The token to send now, or undefined when this slot authenticated (the call goes again). An authentication
   * under way runs in another call's slot, so waiting for it here cannot deadlock. `anyAge`: this call already
   * spent its renewals (each time it came back, the token had aged again: long 429 pauses against short tokens),
   * so it sends with the current one and lets a 401 decide.
   */
  private async tokenForSlot(refused: Token | undefined, anyAge: boolean): Promise<Token | undefined> {
    while (this.renewing) await this.renewing.catch(() => undefined);
    const t = this.token;
    if (t && (t !== refused || anyAge) && (anyAge || this.now() - t.at < t.renewAfterMs)) return t;
    const renewal = this.authenticate().then((fresh) => (this.token = fresh));
    this.renewing = renewal;
    try {
      await renewal;
    } finally {
      if (this.renewing === renewal) this.renewing = undefined;
    }
    return undefined;
  }

  /** One `POST /authenticate`, in the slot of the call that needed it (its failures are that call's to retry). */
  private async authenticate(): Promise<Token> {
    const body = { client_id: this.cfg.clientId, client_secret: this.cfg.clientSecret };
    const req: HttpRequest = {
      method: 'POST',
      url: `${this.cfg.baseUrl}/api/v2/authenticate`,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      homes: HOMES,
    };
    const res = await this.http.text(req, '/api/v2/authenticate');
    let token: unknown = res.text.trim();
    try {
      token = JSON.parse(res.text);
    } catch {
      // A bare token (not JSON-quoted) is taken as it is.
    }
    if (typeof token !== 'string' || !JWT.test(token))
      throw new BadResponseError(
        'Xray',
        res.status,
        `Xray answered POST /api/v2/authenticate with something that is not a token: is XRAY_BASE_URL (xray.baseUrl) = ${this.cfg.baseUrl} Xray Cloud's origin?`,
      );
    this.secrets.push(token);
    return { value: token, at: this.now(), renewAfterMs: renewAfterMs(token) };
  }

  private request(path: string, body: unknown, token: string): HttpRequest {
    return {
      method: 'POST',
      url: `${this.cfg.baseUrl}/api/v2${path}`,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(body),
      credentialHeaders: CREDENTIAL_HEADERS,
      homes: HOMES,
    };
  }
}
