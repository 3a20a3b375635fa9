/** Jira keys -> Test issue ids (a key that is not a Test would fail a whole import), each key asked once per run. */
import { GraphQLCallError, type XrayClient } from './client';
import { PAGE, tests } from './queries';

export class TestIds {
  /** Key -> Test issue id; null: not a Test (or no such issue). */
  private readonly ids = new Map<string, string | null>();

  constructor(private readonly client: XrayClient) {}

  get(key: string): string | null | undefined {
    return this.ids.get(key);
  }

  /** Keys not mapped yet -> Test issue ids, 100 per call. A JQL Xray refuses (one bad key) is split to find the key. */
  async map(keys: readonly string[]): Promise<void> {
    const unknown = [...new Set(keys)].filter((k) => !this.ids.has(k));
    for (let i = 0; i < unknown.length; i += PAGE) await this.mapChunk(unknown.slice(i, i + PAGE));
  }

  private async mapChunk(keys: string[]): Promise<void> {
    try {
      const found = new Map((await tests(this.client, keys)).map((t) => [t.key, t.issueId]));
      for (const k of keys) this.ids.set(k, found.get(k) ?? null);
    } catch (error) {
      if (!(error instanceof GraphQLCallError)) throw error;
      if (keys.length === 1) return void this.ids.set(keys[0], null);
      const half = Math.ceil(keys.length / 2);
      await this.mapChunk(keys.slice(0, half));
      await this.mapChunk(keys.slice(half));
    }
  }
}
