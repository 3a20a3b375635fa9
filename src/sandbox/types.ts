import type { IncomingHttpHeaders } from 'node:http';

/** One request as the sandbox core hands it to a service module. */
export interface SandboxRequest {
  method: string;
  /** The request-target exactly as received (path + query, percent-escapes untouched). */
  rawTarget: string;
  /** Raw path part of rawTarget (before `?`), not decoded. */
  rawPath: string;
  /** Raw query part of rawTarget (after `?`, without `#`), '' when absent. */
  rawQuery: string;
  /** Decoded query parameters (convenience for handlers; auth must use rawTarget). */
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Body text as received, decoded as UTF-8 ('' when none). */
  rawBody: string;
  /** Body bytes exactly as received (multipart uploads with binary files need these, not `rawBody`). */
  rawBytes: Buffer;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  body: unknown;
  /** Set when the body is non-empty but is not valid JSON. */
  bodyParseError?: string;
  /** Arrival time (ms, from the sandbox core's monotonic clock). */
  receivedAt: number;
}

/** What a service module answers. `body` objects are sent as JSON; strings are sent as-is. */
export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Route template used for request counting, e.g. `POST /cycle`. Set by the module. */
  route?: string;
}

/** Per-service switches; every field can be changed at run time through the admin API. */
export interface ServiceFaults {
  /** Added delay before each answer, ms. */
  latencyMs: number;
  /** Fraction (0..1) of authenticated requests answered with the service's "try again" 500, NOT applied. */
  faultRate: number;
  /** Fraction (0..1) of authenticated writes (non-GET) that are applied, then answered with the 500. */
  appliedFaultRate: number;
  /** Fraction (0..1) of requests whose connection is destroyed without an answer. */
  resetRate: number;
  /** Rate limit: at most `count` requests per `windowMs` (Zephyr per access key, CucumberStudio per client IP). */
  rateLimit: { count: number; windowMs: number } | null;
  /** Service unreachable: every request's connection is destroyed. */
  down: boolean;
  /**
   * Canned answers (bad-response tests): the first override whose `method` (if set) and path
   * (`pathIncludes` / `pathEquals`) match the request is sent instead of the service's answer. Applied after the rate limit and before
   * authentication; counted in stats as `overridden` (route `override`). Absent = none.
   */
  overrides?: ResponseOverride[];
}

/** One canned answer of the sandbox core (see `ServiceFaults.overrides`). */
export interface ResponseOverride {
  /** HTTP method to match (case-insensitive); any when absent. */
  method?: string;
  /** Substring of the raw request target (path + query, as received) to match. */
  pathIncludes?: string;
  /** Alternatively, the exact raw path (without the query) to match. One of the two is required. */
  pathEquals?: string;
  status: number;
  /** Sent as-is (no content-type is added unless given in `headers`). */
  body: string;
  headers?: Record<string, string>;
  /** How many requests it answers before it is dropped; unlimited when absent. */
  times?: number;
  /** The request is handled first (it takes effect, as a write a server applied before failing), then this answers. */
  applied?: boolean;
}

/** Name a module is mounted under (admin API keys, stats, state); each module chooses its own. */
export type ServiceName = string;

/**
 * How the core counts a module's rate limit:
 * - `sliding`: at most `count` requests in any window, each refused one told when the oldest expires;
 * - `lockout`: once `count` is exceeded within a window, everything is refused for a whole window from then.
 */
export type RateLimitStyle = 'sliding' | 'lockout';

/** A service stand-in plugged into the sandbox core. The core owns latency, faults, rate limits and counting. */
export interface ServiceModule {
  readonly name: ServiceName;
  /** How this service refuses calls past its limit (see `RateLimitStyle`). */
  readonly rateLimitStyle: RateLimitStyle;
  /** The service's own fault switches before the sandbox's options apply (e.g. a documented rate limit); none when absent. */
  readonly defaultFaults?: Partial<ServiceFaults>;
  /**
   * Run-time behaviour switches beyond the core's faults (admin API `POST /__sandbox/settings` and the CLI's
   * `--set`): apply a patch (throwing on an unknown key or bad value, nothing applied then) and read them back.
   * Absent when the module has none.
   */
  configure?(patch: Record<string, unknown>): unknown;
  settings?(): unknown;
  /** True when this module serves the raw path (prefix match on its mount point). */
  matches(rawPath: string): boolean;
  /**
   * Verify credentials; return an error response (401/406/…) or null when the request may proceed.
   * Runs after the rate limit and before fault injection.
   */
  authenticate(req: SandboxRequest): SandboxResponse | null;
  /** Key the rate limit is counted by (Zephyr: access key header; CucumberStudio: client IP). */
  rateLimitKey(req: SandboxRequest, remoteAddress: string): string;
  /** The 429 answer for this service, given the seconds until the window frees up. */
  rateLimitResponse(waitSeconds: number): SandboxResponse;
  /** The service's transient-failure answer (Zephyr: 500 errorCode 104). */
  faultResponse(): SandboxResponse;
  /** Serve an authenticated request. */
  handle(req: SandboxRequest): Promise<SandboxResponse> | SandboxResponse;
  /** Counters of what the service was sent that tests assert on (in `stats()` as `counters`); absent when none. */
  counters?(): Record<string, number>;
  /** Plain-JSON view of everything the service holds (for tests, demo and bench). */
  snapshot(): unknown;
  /** Forget everything except the seeded fixtures. */
  reset(): void;
  /** Env vars that point the reporter at this module, given the sandbox origin. */
  env(origin: string): Record<string, string>;
}

export interface RequestLogEntry {
  service: ServiceName;
  method: string;
  target: string;
  route: string;
  status: number;
  /** Wall-clock time (ms since the epoch) the answer was sent. */
  at: number;
  /** A rate-limited answer's wait as the client was told it, in whole seconds. */
  waitSeconds?: number;
  /** Of the request body, when there is one: tells a request sent again from another one to the same path. */
  bodyDigest?: string;
}
