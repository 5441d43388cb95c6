import {
  LimitNode,
  SelectQueryNode,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * SQLite (3.53 here) marks a statement whose LIMIT is a bound parameter to be
 * prepared again whenever that parameter is bound, and better-sqlite3 binds
 * every parameter on every run: a `limit ?` query was planned anew on each
 * call, 30–40 µs for a select on the e-CF table with its many indexes,
 * against a few µs to run it. So the LIMIT of a select, when it is a plain
 * integer, is written into the query text instead. The statement cache is
 * bounded, so the few page sizes a list asks for cost a few cached
 * statements at most. Only the outermost select is looked at: a full walk of
 * every query's tree would cost more than it saves, and no query here limits
 * a subquery.
 */
export class InlineLimits implements KyselyPlugin {
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!SelectQueryNode.is(node) || !node.limit) return node;
    const limit = node.limit.limit;
    if (!ValueNode.is(limit) || limit.immediate || !Number.isSafeInteger(limit.value)) return node;
    return { ...node, limit: LimitNode.create(ValueNode.createImmediate(limit.value)) };
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}
