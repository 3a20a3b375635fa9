import type { JobProgress, ZephyrClient } from './client';

export interface JobWaitOptions {
  /** First poll after this many ms (then ×1.6, capped). Production jobs take seconds. */
  firstPollMs?: number;
  maxPollMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** Polls `jobprogress` until `progress` ≥ 1; an error message or the timeout ends it with an error. */
export async function waitForJob(client: ZephyrClient, token: string, o: JobWaitOptions = {}): Promise<JobProgress> {
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (o.timeoutMs ?? 300_000);
  let wait = o.firstPollMs ?? 200;
  for (;;) {
    await sleep(wait);
    const p = await client.jobProgress(token);
    if (p.errorMessage) throw new Error(`Zephyr job failed: ${p.errorMessage}`);
    if (Number(p.progress ?? 0) >= 1) return p;
    if (Date.now() > deadline) throw new Error(`Zephyr job did not finish within ${Math.round((o.timeoutMs ?? 300_000) / 1000)} s`);
    wait = Math.min(o.maxPollMs ?? 2_000, Math.round(wait * 1.6));
  }
}

/**
 * Keys an add-tests job reports as not added (unknown, or not Test issues). The wording of the
 * message is not documented: read a JSON `invalid` list if present, else the keys named after
 * "invalid"/"not found".
 */
export function parseAddJobMessage(message: string | undefined): string[] {
  if (!message) return [];
  try {
    const parsed = JSON.parse(message) as { invalid?: unknown };
    if (Array.isArray(parsed.invalid)) return parsed.invalid.map(String);
  } catch {
    /* plain text */
  }
  const m = /(?:invalid|not found|not a test)[^:]*:\s*([A-Z0-9_,\s-]+)/i.exec(message);
  return m ? (m[1].match(/[A-Z][A-Z0-9_]*-\d+/g) ?? []) : [];
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
