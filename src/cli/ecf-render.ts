import type { EcfSummary, EcfView } from '../engine/ecf/index.js';
import { record } from './render.js';

/** The columns of `ecf list`, one row per e-CF. */
export const ECF_COLUMNS = ['encf', 'type', 'status', 'issueDate', 'montoTotal', 'buyerName', 'id'] as const;

export function ecfRow(e: EcfSummary): Record<string, unknown> {
  return {
    encf: e.encf,
    type: e.type,
    status: e.status,
    issueDate: e.issueDate,
    montoTotal: e.montoTotal.toFixed(2),
    buyerName: e.buyerName,
    id: e.id,
  };
}

/** How to get the signed XML of an e-CF from the command line (naming the tenant when the user had to). */
export const xmlCommand = (e: Pick<EcfView, 'id' | 'encf'>, tenant?: string): string =>
  `ecf xml ${e.id}${tenant !== undefined ? ` --tenant ${tenant}` : ''} -o ${e.encf}.xml`;

/** One e-CF as "key: value" lines; nested parts (tax authority answer, retry, links) flattened. */
export function ecfText(e: EcfView, tenant?: string): string {
  const { taxauth, retry, links, ...rest } = e;
  return record({
    ...rest,
    montoTotal: e.montoTotal.toFixed(2),
    taxauthStatus: taxauth?.status ?? null,
    taxauthTrackId: taxauth?.trackId ?? null,
    taxauthMessages: taxauth?.messages?.map((m) => `${m.code} ${m.value}`).join('; ') || null,
    retry: retry ? `${retry.count}/${retry.max}${retry.nextAttemptAt ? `, next at ${retry.nextAttemptAt}` : ''}` : null,
    xml: xmlCommand(e, tenant),
    api: links.self,
  });
}
