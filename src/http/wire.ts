/**
 * One request and its answer over Node's own HTTP client (`node:http` / `node:https`), on keep-alive
 * agents. Node's client parses in C++; undici parses with a WebAssembly module whose optimizing tier-up
 * takes ~35 MB of compiler memory at the busiest moment of a large publish (bench/README, figure 5), and
 * undici's own load was a sixth of the reporter's CPU in a 2,000-test run (figure 4). Redirects, credentials
 * and typed errors stay in `client.ts`; this file only moves bytes.
 */
import * as http from 'node:http';
import * as https from 'node:https';

/** A request body: text, or bytes with the Content-Type that describes them (multipart). */
export interface WireBody {
  bytes: string | Uint8Array;
  contentType?: string;
}

/** Max sockets per origin. */
const CONNECTIONS = 16;

/** How long an idle keep-alive socket is kept (a shorter `Keep-Alive: timeout=` from the server wins). */
const KEEP_ALIVE_MS = 10_000;

/** `timeoutMs`: no byte for this long (connecting, waiting for the answer's head, between its body's chunks) is ETIMEDOUT. */
export function createWire(timeoutMs: number) {
  const agentOptions = { keepAlive: true, maxSockets: CONNECTIONS, timeout: KEEP_ALIVE_MS };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  /** The answer's headers have lower-case names (repeated ones joined with ", "); its body is read as UTF-8 text. */
  const exchange = (url: URL, method: string, headers: Record<string, string>, body: WireBody | undefined) =>
    new Promise<{ status: number; headers: Record<string, string>; text: string }>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const sendHeaders = body?.contentType ? { ...headers, 'Content-Type': body.contentType } : headers;
      const req = (secure ? https : http).request(
        url,
        { method, headers: sendHeaders, agent: secure ? agents['https:'] : agents['http:'], timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          // The connection closing before the whole body came is an error here (ECONNRESET), not a short answer.
          res.on('error', (error) => reject(Object.assign(error, { answered: true })));
          res.on('end', () => {
            const answer: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) answer[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            resolve({ status: res.statusCode ?? 0, headers: answer, text: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      // With the whole body given to end(), Node sends its Content-Length (no chunked encoding).
      req.end(body?.bytes);
    });

  return {
    exchange,
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
