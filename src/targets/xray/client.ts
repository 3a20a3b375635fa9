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
  at: number;
}

/** A GraphQL answer that carried `errors` (§0.5): the call failed, in the service's words. */
export class GraphQLCallError extends BadResponseError {}

/**
 * Xray Cloud's wire: one token per process (authenticate lazily, shared by every call; a new one once after a
 * 401), REST imports and GraphQL through the one lane, since they share one request budget (§7).
 */
export class XrayClient {
  private readonly http: JsonExchange;
  private token?: Promise<Token>;
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

  /** A call with the bearer token; a 401 asks for a new token once and repeats the call (expired or revoked token). */
  private async authorized<T>(label: string, path: string, body: unknown): Promise<T> {
    const first = await this.currentToken();
    try {
      return await this.lane.send(label, () => this.http.json<T>(this.request(path, body, first.value), `/api/v2${path}`));
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 401) throw error;
      const fresh = await this.currentToken(first);
      return this.lane.send(label, () => this.http.json<T>(this.request(path, body, fresh.value), `/api/v2${path}`));
    }
  }

  /**
   * The shared token (one authentication however many calls ask at once). `refused`: the token a 401 refused;
   * the first call to notice replaces it, the others take the new one. Failed or aged tokens are replaced too.
   */
  private currentToken(refused?: Token): Promise<Token> {
    const pending = this.token;
    if (!pending) return this.renew(undefined);
    return pending.then(
      (t) => (t === refused || this.now() - t.at >= TOKEN_MAX_AGE_MS ? this.renew(pending) : t),
      () => this.renew(pending),
    );
  }

  private renew(seen: Promise<Token> | undefined): Promise<Token> {
    if (this.token === seen) this.token = this.authenticate();
    return this.token!;
  }

  private async authenticate(): Promise<Token> {
    const body = { client_id: this.cfg.clientId, client_secret: this.cfg.clientSecret };
    const value = await this.lane.retry('authenticate', () =>
      this.lane.send('authenticate', async () => {
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
        return token;
      }),
    );
    this.secrets.push(value);
    return { value, at: this.now() };
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
