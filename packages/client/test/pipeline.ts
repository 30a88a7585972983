/**
 * The S2SP pipeline the client tests drive: a resource server whose body columns hold
 * distinctive strings, and a consumer server that records the rows it receives. Both are real
 * servers on loopback ports.
 */

import type { RowWithId } from '@s2sp/core';
import { createS2SPServer, type ListeningServer, silentLogger } from '@s2sp/server';

/** Every body value contains this marker, so a leak into a prompt is easy to find. */
export const BODY_MARKER = 'BODY-VALUE';

export const TABLE = Array.from({ length: 12 }, (_, i) => ({
  event: i % 3 === 0 ? 'Flood Warning' : 'Heat Advisory',
  severity: i % 2 === 0 ? 'Severe' : 'Minor',
  description: `${BODY_MARKER}-description-${i}`,
  instruction: `${BODY_MARKER}-instruction-${i}`,
  geocode: { UGC: [`${BODY_MARKER}-TXZ${100 + i}`] },
}));

export interface Pipeline extends AsyncDisposable {
  readonly resource: ListeningServer;
  readonly consumer: ListeningServer;
  /** Rows each consumer call received, in call order. */
  readonly received: RowWithId[][];
}

/** Starts the resource server (`get_alerts`) and the consumer server (`summarise_alerts`). */
export async function startPipeline(): Promise<Pipeline> {
  const resourceServer = createS2SPServer({ name: 'alerts', version: '1', logger: silentLogger });
  resourceServer.resourceTool('get_alerts', { description: 'Active alerts.' }, () => TABLE);
  const resource = await resourceServer.listen();
  const consumerServer = createS2SPServer({
    name: 'summaries',
    version: '1',
    logger: silentLogger,
    consumer: { allowedOrigins: [resource.url] }, // a loopback resource server
  });
  const received: RowWithId[][] = [];
  consumerServer.consumerTool('summarise_alerts', { description: 'Summarises alerts.' }, (rows) => {
    received.push(rows);
    return `summarised ${rows.length} alerts`;
  });
  const consumer = await consumerServer.listen();
  const close = async () => {
    await resourceServer.close();
    await consumerServer.close();
  };
  return { resource, consumer, received, [Symbol.asyncDispose]: close };
}

/** The full rows a consumer should receive for the given ids. */
export function expectedRows(ids: readonly number[]): RowWithId[] {
  return ids.map((id) => ({ _row_id: id, ...TABLE[id] }));
}

/** Every body value of the given rows, for "the consumer got all of them" checks. */
export function bodyValues(ids: readonly number[]): string[] {
  return ids.flatMap((id) => {
    const row = TABLE[id];
    return row ? [row.description, row.instruction, ...row.geocode.UGC] : [];
  });
}

/** What a model reads of a sync result once the dispatcher has rewritten it. */
export interface ModelView {
  readonly resource_url: string;
  readonly abstract: { _row_id: number; event: string }[];
}

/**
 * Does what a model does with a sync result's text: keeps the flood warnings of its abstract and
 * passes them, with the result's `resource_url` (a handle), to `summarise_alerts`.
 *
 * @param consumer - a client of the consumer server, wrapped by an adapter
 * @param text - the rewritten result's text
 * @returns what the model read, the rows it kept and the consumer's answer
 */
export async function summariseFloods(
  consumer: { callTool(params: { name: string; arguments: Record<string, unknown> }): unknown },
  text: string | undefined,
) {
  const object = JSON.parse(text ?? '') as ModelView;
  const floods = object.abstract.filter((row) => row.event === 'Flood Warning');
  const done = (await consumer.callTool({
    name: 'summarise_alerts',
    arguments: { abstract_data: JSON.stringify(floods), resource_url: object.resource_url },
  })) as { content: { type: string; text: string }[]; isError?: boolean };
  return { object, floods, done };
}
