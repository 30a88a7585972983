/**
 * The real demo pipeline for the agent-loop tests: the offline NWS replay, weather-alerts (the
 * S2SP resource server) and chart-consumer (the S2SP consumer), on loopback ports, with a
 * recording proxy in front of chart-consumer so the tests see exactly what the consumer receives.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createChartServer } from '@s2sp/app-chart-consumer';
import { createWeatherServer, startNwsReplayServer } from '@s2sp/app-weather-alerts';
import { silentLogger } from '@s2sp/server';

/** The abstract columns the scripted model asks for; every other column is body. */
export const ABSTRACT_DOMAINS = 'event,severity,urgency,status';
/** The area and event the scripted model charts: 13 of the 19 recorded Texas alerts. */
export const AREA = 'TX';
export const KEEP_EVENT = 'Heat';

export interface Pipeline extends AsyncDisposable {
  readonly weatherMcpUrl: string;
  /** chart-consumer's MCP endpoint, behind the recording proxy. */
  readonly chartMcpUrl: string;
  /** Every request body chart-consumer received, in order. */
  readonly consumerRequests: string[];
  /** Body-value fragments of every row (see {@link fragmentsOf}), by `_row_id`. */
  readonly bodyFragments: Map<number, string[]>;
  /** The `_row_id`s the scripted model keeps. */
  readonly keptIds: number[];
}

/**
 * Distinctive pieces of a body value that survive any depth of JSON escaping: runs of letters,
 * digits, spaces, commas and dots, at least 24 characters long (cut to 40).
 */
export function fragmentsOf(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return [...(text ?? '').matchAll(/[A-Za-z0-9][A-Za-z0-9 ,.]{23,}/g)].map((m) =>
    m[0].slice(0, 40),
  );
}

/** The fragments of `fragments` found in `text`. */
export function leaked(text: string, fragments: Iterable<string>): string[] {
  return [...fragments].filter((fragment) => text.includes(fragment));
}

function startRecordingProxy(target: URL, recorded: string[]): Promise<Server> {
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) recorded.push(body.toString('utf8'));
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error) => res.destroy(error));
      upstream.end(body);
    });
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

async function plainRows(mcpUrl: string, area: string): Promise<Record<string, unknown>[]> {
  const client = new Client({ name: 'fixture-reader', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    const result = (await client.callTool({ name: 'get_alerts', arguments: { area } })) as {
      content: { type: string; text?: string }[];
    };
    return JSON.parse(result.content[0]?.text ?? '[]') as Record<string, unknown>[];
  } finally {
    await client.close();
  }
}

/**
 * Starts the pipeline; dispose it to stop everything.
 * @param area - the NWS area whose rows the body checks use (default {@link AREA})
 */
export async function startPipeline(area = AREA): Promise<Pipeline> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer().catch(() => {});
  };
  try {
    const replay = await startNwsReplayServer({ port: 0, host: '127.0.0.1' });
    closers.push(() => replay.close());
    const weatherServer = createWeatherServer({
      nws: { baseUrl: replay.url },
      logger: silentLogger,
    });
    const weather = await weatherServer.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => weatherServer.close());
    const chartServer = createChartServer({ allowedOrigins: [weather.url], logger: silentLogger });
    const chart = await chartServer.server.listen({ port: 0, host: '127.0.0.1' });
    chartServer.setBaseUrl(chart.url);
    closers.push(() => chartServer.server.close());
    const consumerRequests: string[] = [];
    const proxy = await startRecordingProxy(new URL(chart.mcpUrl), consumerRequests);
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          proxy.closeAllConnections();
          proxy.close(() => resolve());
        }),
    );
    const { port } = proxy.address() as AddressInfo;

    // The truth the checks compare against: every row, read plainly by the test, not the model.
    const rows = await plainRows(weather.mcpUrl, area);
    const abstract = new Set(ABSTRACT_DOMAINS.split(','));
    const bodyFragments = new Map<number, string[]>();
    const keptIds: number[] = [];
    rows.forEach((row, id) => {
      const fragments = Object.entries(row)
        .filter(([column]) => !abstract.has(column))
        .flatMap(([, value]) => fragmentsOf(value));
      bodyFragments.set(id, [...new Set(fragments)]);
      if (String(row.event).includes(KEEP_EVENT)) keptIds.push(id);
    });
    return {
      weatherMcpUrl: weather.mcpUrl,
      chartMcpUrl: `http://127.0.0.1:${port}${new URL(chart.mcpUrl).pathname}`,
      consumerRequests,
      bodyFragments,
      keptIds,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The arguments of every `draw_chart` call chart-consumer received. */
export function drawChartCalls(pipeline: Pipeline): Record<string, unknown>[] {
  const calls: Record<string, unknown>[] = [];
  for (const text of pipeline.consumerRequests) {
    const messages = [JSON.parse(text) as unknown].flat() as {
      method?: string;
      params?: { name?: string; arguments?: Record<string, unknown> };
    }[];
    for (const message of messages)
      if (message.method === 'tools/call' && message.params?.name === 'draw_chart')
        calls.push(message.params.arguments ?? {});
  }
  return calls;
}
