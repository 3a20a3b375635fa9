/**
 * `POST /api/v2/graphql` (§3.4): parsed, validated and executed by graphql-js against `schema.ts`. Syntax and
 * schema-validation errors (an unknown field, a missing `limit`, a selection set on a String-returning mutation)
 * answer HTTP 400 `{"errors":[…]}` (§0.5); so do the list limits (§7: `limit` 1..100, at most 10,000 items per call
 * counting nested connections as the documented arithmetic does), checked before anything runs. Errors raised
 * while resolving answer 200 with `data` and `errors`.
 */
import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  validate,
  executeSync,
  type DocumentNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { SandboxResponse } from '../types';
import { graphqlErrors, ok } from './answers';
import { rootValue } from './resolvers';
import { schema } from './schema';
import type { XrayStore } from './store';

const ROUTE = 'POST /graphql';
const MIN_LIMIT = 1;
const MAX_LIMIT = 100;
const MAX_ITEMS = 10_000;

/** Targeted faults of the module: `(root field names, applied?)` → the fault answer, or null. */
export type FaultHook = (operations: string[], applied: boolean) => SandboxResponse | null;

export function graphqlAnswer(store: XrayStore, body: unknown, parseError: string | undefined, fault: FaultHook): SandboxResponse {
  const req = (typeof body === 'object' && body !== null ? body : {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
  if (parseError || typeof req.query !== 'string') return graphqlErrors(400, [{ message: 'Must provide query string.' }], ROUTE);
  const variables = (typeof req.variables === 'object' && req.variables !== null ? req.variables : {}) as Record<string, unknown>;
  const operationName = typeof req.operationName === 'string' ? req.operationName : undefined;
  let document: DocumentNode;
  try {
    document = parse(req.query);
  } catch (e) {
    return graphqlErrors(400, [(e as GraphQLError).toJSON()], ROUTE);
  }
  const invalid = validate(schema, document);
  if (invalid.length > 0)
    return graphqlErrors(
      400,
      invalid.map((e) => e.toJSON()),
      ROUTE,
    );
  const operation = getOperationAST(document, operationName);
  if (!operation)
    return graphqlErrors(400, [{ message: 'Must provide a single operation, or name the one to run (operationName).' }], ROUTE);
  const limitErrors = checkLimits(document, operation, variables);
  if (limitErrors.length > 0)
    return graphqlErrors(
      400,
      limitErrors.map((message) => ({ message })),
      ROUTE,
    );

  const roots = rootFieldNames(operation);
  const before = fault(roots, false);
  if (before) return before;
  const result = executeSync({ schema, document, rootValue: rootValue(store), variableValues: variables, operationName });
  // Variables that do not coerce fail before execution: a request error (400) in GraphQL-over-HTTP terms.
  if (result.data === undefined && result.errors?.length)
    return graphqlErrors(
      400,
      result.errors.map((e) => e.toJSON()),
      ROUTE,
    );
  const after = result.errors?.length ? null : fault(roots, true);
  if (after) return after;
  if (result.errors?.length)
    return graphqlErrors(
      200,
      result.errors.map((e) => e.toJSON()),
      ROUTE,
      result.data ?? null,
    );
  return ok({ data: result.data }, ROUTE);
}

function rootFieldNames(operation: OperationDefinitionNode): string[] {
  return operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD ? [s.name.value] : []));
}

/** The `limit` range on every connection and the item cap of the whole call (nested limits multiply). */
function checkLimits(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): string[] {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const errors: string[] = [];
  let items = 0;
  const valueOf = (v: ValueNode): unknown => {
    if (v.kind === Kind.VARIABLE) return variables[v.name.value];
    if (v.kind === Kind.INT) return Number(v.value);
    return undefined;
  };
  const walk = (set: SelectionSetNode | undefined, multiplier: number, seen: Set<string>): void => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, multiplier, seen);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f && !seen.has(f.name.value)) walk(f.selectionSet, multiplier, new Set([...seen, f.name.value]));
      } else {
        const arg = s.arguments?.find((a) => a.name.value === 'limit');
        let m = multiplier;
        if (arg) {
          const limit = valueOf(arg.value);
          if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < MIN_LIMIT || limit > MAX_LIMIT) {
            errors.push(`${s.name.value}: limit must be between ${MIN_LIMIT} and ${MAX_LIMIT}, got ${JSON.stringify(limit ?? null)}`);
            continue;
          }
          m = multiplier * limit;
          items += m;
        }
        walk(s.selectionSet, m, seen);
      }
    }
  };
  walk(operation.selectionSet, 1, new Set());
  if (errors.length === 0 && items > MAX_ITEMS) {
    errors.push(
      `The query would return up to ${items} items; at most ${MAX_ITEMS} items can be asked for in one call (nested limits multiply).`,
    );
  }
  return errors;
}
