import { ApiError, ERR } from './http';
import type { Execution, ZephyrStore } from './store';

/**
 * The subset of ZQL (wire reference §4.7 #32) that clients send: `=`, `!=`, `in (…)`, `not in (…)`, `~`,
 * `AND`/`OR`, parentheses and `ORDER BY`, over the fields the sandbox holds. A field it does not know is
 * a 400 naming the field, as Jira's query parsers answer; a value that matches nothing is just no match.
 */
type Token = { kind: 'word' | 'string' | 'op' | 'paren' | 'comma'; text: string };
type Condition = { field: string; op: '=' | '!=' | '~' | 'in' | 'not in'; values: string[] };
type Expr = { and: Expr[] } | { or: Expr[] } | Condition;
export interface ZqlQuery {
  where: Expr | undefined;
  orderBy: Array<{ field: string; desc: boolean }>;
}

const FIELDS = ['project', 'fixversion', 'cyclename', 'foldername', 'issue', 'executionstatus', 'summary', 'executedby', 'executiondate'];

const bad = (message: string): ApiError => new ApiError(400, message, ERR.invalid);

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  const re = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(!=|=|~)|([()])|(,)|([^\s"'()=!~,]+))/y;
  let at = 0;
  while (query.slice(at).trim() !== '') {
    re.lastIndex = at;
    const m = re.exec(query);
    if (!m) throw bad(`Error in the ZQL query: unexpected "${query.slice(at).trim().slice(0, 20)}".`);
    at = re.lastIndex;
    if (m[1] !== undefined || m[2] !== undefined) tokens.push({ kind: 'string', text: (m[1] ?? m[2]).replace(/\\(.)/g, '$1') });
    else if (m[3]) tokens.push({ kind: 'op', text: m[3] });
    else if (m[4]) tokens.push({ kind: 'paren', text: m[4] });
    else if (m[5]) tokens.push({ kind: 'comma', text: ',' });
    else tokens.push({ kind: 'word', text: m[6] });
  }
  return tokens;
}

export function parseZql(query: string): ZqlQuery {
  const tokens = tokenize(query);
  let i = 0;
  const peekWord = (...words: string[]) => tokens[i]?.kind === 'word' && words.includes(tokens[i].text.toLowerCase());
  const expectValue = (): string => {
    const t = tokens[i++];
    if (!t || (t.kind !== 'word' && t.kind !== 'string')) throw bad('Error in the ZQL query: expecting a value.');
    return t.text;
  };
  const condition = (): Expr => {
    if (tokens[i]?.text === '(') {
      i++;
      const inner = or();
      if (tokens[i++]?.text !== ')') throw bad('Error in the ZQL query: expecting ")".');
      return inner;
    }
    const field = expectValue().toLowerCase();
    if (!FIELDS.includes(field)) throw bad(`Field '${field}' does not exist or you do not have permission to view it.`);
    let op: Condition['op'];
    if (tokens[i]?.kind === 'op') op = tokens[i++].text as Condition['op'];
    else if (peekWord('in')) ((op = 'in'), i++);
    else if (peekWord('not') && tokens[i + 1]?.text.toLowerCase() === 'in') ((op = 'not in'), (i += 2));
    else throw bad(`Error in the ZQL query: expecting an operator after '${field}'.`);
    if (op === 'in' || op === 'not in') {
      if (tokens[i++]?.text !== '(') throw bad(`Error in the ZQL query: expecting "(" after ${op}.`);
      const values = [expectValue()];
      while (tokens[i]?.kind === 'comma') (i++, values.push(expectValue()));
      if (tokens[i++]?.text !== ')') throw bad('Error in the ZQL query: expecting ")".');
      return { field, op, values };
    }
    return { field, op, values: [expectValue()] };
  };
  const and = (): Expr => {
    const parts = [condition()];
    while (peekWord('and')) (i++, parts.push(condition()));
    return parts.length === 1 ? parts[0] : { and: parts };
  };
  const or = (): Expr => {
    const parts = [and()];
    while (peekWord('or')) (i++, parts.push(and()));
    return parts.length === 1 ? parts[0] : { or: parts };
  };
  const where = tokens.length && !peekWord('order') ? or() : undefined;
  const orderBy: ZqlQuery['orderBy'] = [];
  if (peekWord('order')) {
    i++;
    if (!peekWord('by')) throw bad('Error in the ZQL query: expecting "by" after "order".');
    do {
      i++;
      const field = expectValue().toLowerCase();
      if (!FIELDS.includes(field)) throw bad(`Field '${field}' does not exist or you do not have permission to view it.`);
      const desc = peekWord('desc');
      if (desc || peekWord('asc')) i++;
      orderBy.push({ field, desc });
    } while (tokens[i]?.kind === 'comma');
  }
  if (i < tokens.length) throw bad(`Error in the ZQL query: unexpected "${tokens[i].text}".`);
  return { where, orderBy };
}

/** The values a field has on one execution (a project matches by id or key, a version by id or name). */
function fieldValues(store: ZephyrStore, e: Execution, field: string): string[] {
  switch (field) {
    case 'project':
      return [String(e.projectId), store.cfg.projectKey];
    case 'fixversion':
      return [String(e.versionId), store.versionName(e.versionId)];
    case 'cyclename':
      return [store.containerOf(e)?.name ?? ''];
    case 'foldername':
      return e.folderId === null ? [] : [store.folders.get(e.folderId)?.name ?? ''];
    case 'issue':
      return [e.issueKey, String(e.issueId)];
    case 'executionstatus':
      return [store.status(e.statusId)?.name ?? String(e.statusId)];
    case 'summary':
      return [store.issueById(e.issueId)?.summary ?? ''];
    case 'executedby':
      return e.executedByAccountId ? [e.executedByAccountId] : [];
    default:
      return e.executedOn === null ? [] : [String(e.executedOn)];
  }
}

function matches(store: ZephyrStore, e: Execution, expr: Expr): boolean {
  if ('and' in expr) return expr.and.every((x) => matches(store, e, x));
  if ('or' in expr) return expr.or.some((x) => matches(store, e, x));
  const have = fieldValues(store, e, expr.field).map((v) => v.toLowerCase());
  const wanted = expr.values.map((v) => v.toLowerCase());
  const hit = expr.op === '~' ? have.some((h) => wanted.some((w) => h.includes(w))) : have.some((h) => wanted.includes(h));
  return expr.op === '!=' || expr.op === 'not in' ? !hit : hit;
}

/** Every execution in every cycle (Ad hoc included) the query selects, in its ORDER BY (else creation) order. */
export function runZql(store: ZephyrStore, query: ZqlQuery): Execution[] {
  const found = [...store.executions.values()].filter((e) => !query.where || matches(store, e, query.where));
  return found.sort((a, b) => {
    for (const { field, desc } of query.orderBy) {
      const [x, y] = [fieldValues(store, a, field)[0] ?? '', fieldValues(store, b, field)[0] ?? ''];
      const c = x.localeCompare(y, 'en', { numeric: true });
      if (c) return desc ? -c : c;
    }
    return 0;
  });
}
