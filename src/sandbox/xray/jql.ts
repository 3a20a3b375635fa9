/**
 * The JQL subset the GraphQL look-ups take (§6.2, §6.3): clauses joined by AND on `key`/`issuekey`/`issue`/`id`
 * (`=`, `!=`, `in`, `not in`), `project` (`=`, `in`), `summary`/`text` (`~`: Jira's text search — every word of the
 * phrase, case-insensitive, so `~ "Nightly #8"` also finds "Nightly #8 chromium"; a client must keep exact matches
 * itself), `labels` and `issuetype`/`type` (`=`, `in`); `ORDER BY …` is ignored. Anything else is refused with
 * Jira's kind of message. Hand-written on purpose: it is a few clauses, not a language (no library covers JQL).
 */
import type { Issue, XrayStore } from './store';

interface Clause {
  field: string;
  op: '=' | '!=' | 'in' | 'not in' | '~';
  values: string[];
}

export class JqlError extends Error {}

const FIELDS: Record<string, Clause['op'][]> = {
  key: ['=', '!=', 'in', 'not in'],
  project: ['=', '!=', 'in', 'not in'],
  summary: ['~'],
  labels: ['=', '!=', 'in', 'not in'],
  issuetype: ['=', '!=', 'in', 'not in'],
};
const ALIASES: Record<string, string> = { issuekey: 'key', issue: 'key', id: 'key', text: 'summary', type: 'issuetype' };

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const re = /\s*(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(!=|!~|[=~(),])|([^\s"'=~!(),]+))/gy;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(text)) !== null && m[0] !== '') {
    tokens.push(m[1] ?? m[2] ?? m[3]);
    last = re.lastIndex;
  }
  if (text.slice(last).trim() !== '') throw new JqlError(`Error in the JQL Query: unexpected "${text.slice(last).trim().slice(0, 20)}".`);
  return tokens;
}

function unquote(token: string): string {
  return /^["']/.test(token) ? token.slice(1, -1).replace(/\\(.)/g, '$1') : token;
}

export function parseJql(text: string): Clause[] {
  const tokens = tokenize(text);
  const order = tokens.findIndex((t, i) => t.toUpperCase() === 'ORDER' && tokens[i + 1]?.toUpperCase() === 'BY');
  const list = order >= 0 ? tokens.slice(0, order) : tokens;
  const clauses: Clause[] = [];
  let i = 0;
  const next = () => list[i++];
  while (i < list.length) {
    if (clauses.length > 0) {
      const and = next();
      if (and?.toUpperCase() !== 'AND')
        throw new JqlError(`Error in the JQL Query: expected AND, got "${and}" (the sandbox takes AND only).`);
    }
    const raw = unquote(next() ?? '').toLowerCase();
    const field = ALIASES[raw] ?? raw;
    if (!FIELDS[field]) throw new JqlError(`Field '${raw}' does not exist or you do not have permission to view it.`);
    let op = (next() ?? '').toLowerCase() as Clause['op'];
    if ((op as string) === 'not') op = (next() ?? '').toLowerCase() === 'in' ? 'not in' : ('?' as Clause['op']);
    if (!FIELDS[field].includes(op)) throw new JqlError(`The operator '${op}' is not supported by the '${raw}' field.`);
    const values: string[] = [];
    if (op === 'in' || op === 'not in') {
      if (next() !== '(') throw new JqlError(`Error in the JQL Query: expected "(" after ${op}.`);
      for (let t = next(); t !== ')'; t = next()) {
        if (t === undefined) throw new JqlError('Error in the JQL Query: missing ")".');
        if (t !== ',') values.push(unquote(t));
      }
    } else {
      const v = next();
      if (v === undefined || /^[(),]$/.test(v)) throw new JqlError(`Error in the JQL Query: expected a value after ${op}.`);
      values.push(unquote(v));
    }
    clauses.push({ field, op, values });
  }
  return clauses;
}

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}#_]+/u)
    .filter(Boolean);

function matchesClause(store: XrayStore, issue: Issue, c: Clause): boolean {
  const anyOf = (candidates: string[]) => c.values.some((v) => candidates.some((x) => x.toLowerCase() === v.toLowerCase()));
  const { projectKey, projectId, projectName } = store.fixtures;
  switch (c.field) {
    case 'key': {
      const hit = anyOf([issue.key, issue.id]);
      return c.op === '=' || c.op === 'in' ? hit : !hit;
    }
    case 'project': {
      const hit = anyOf([projectKey, projectId, projectName]);
      return c.op === '=' || c.op === 'in' ? hit : !hit;
    }
    case 'labels': {
      const hit = anyOf(issue.labels);
      return c.op === '=' || c.op === 'in' ? hit : !hit;
    }
    case 'issuetype': {
      const hit = anyOf([issue.type]);
      return c.op === '=' || c.op === 'in' ? hit : !hit;
    }
    default: {
      const have = new Set(words(issue.summary));
      return words(c.values[0]).every((w) => have.has(w));
    }
  }
}

/** The issues of one type that match the JQL (in key order); throws `JqlError` on a query Jira would refuse. */
export function searchIssues(store: XrayStore, jql: string | null | undefined, type: Issue['type']): Issue[] {
  const clauses = jql ? parseJql(jql) : [];
  if (store.settings.jqlUnknownKey === 'error') {
    for (const c of clauses.filter((x) => x.field === 'key')) {
      const missing = c.values.find((v) => !store.byKeyOrId(v));
      if (missing) throw new JqlError(`An issue with key '${missing}' does not exist for field 'key'.`);
    }
  }
  return [...store.issues.values()].filter((i) => i.type === type && clauses.every((c) => matchesClause(store, i, c)));
}
