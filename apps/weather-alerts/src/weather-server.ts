import { PROTOCOL } from '@s2sp/core';
import type { BodyStore } from '@s2sp/core/store';
import { createS2SPServer, type Logger, type S2SPServer } from '@s2sp/server';
import type { EdgeEnvOptions } from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { z } from 'zod';
import { alertRow } from './alert-rows.js';
import { NWS_MARINE_AREAS, parseAreaCode } from './area-codes.js';
import { cacheStatus } from './cache-status.js';
import { weatherCapabilities } from './capabilities.js';
import { parseCoordinates } from './coordinates.js';
import { createNwsClient, type NwsClient, type NwsClientOptions } from './nws-client.js';
import { alertRowSchema, forecastPeriodSchema } from './row-schemas.js';
import { validInput, withNwsErrors } from './tool-errors.js';
import { workflowPromptText } from './workflow-prompt.js';

/** The version this app reports to MCP clients. */
export const WEATHER_SERVER_VERSION = '0.1.0';

/** Options for {@link createWeatherServer}. All optional: `createWeatherServer()` talks to the real NWS. */
export interface WeatherServerOptions {
  /** How to reach NWS (base URL, User-Agent, timeout, cache). Ignored when `nwsClient` is given. */
  readonly nws?: NwsClientOptions;
  /** A ready NWS client, for sharing one (and its cache) between servers. */
  readonly nwsClient?: NwsClient;
  /** MCP server name. Default `weather-alerts`. */
  readonly name?: string;
  /** Logger for the server and the NWS client. Default: console at `info` on standard error. */
  readonly logger?: Logger;
  /** Body store for async results. Default: in memory. Pass a Redis store to run replicas. */
  readonly store?: BodyStore;
  /** `resource_url` lifetime in seconds. Default 600. */
  readonly ttlSeconds?: number;
  /** How long a redemption with an `Idempotency-Key` can be repeated (PROTOCOL §7.10), in ms. Default 60 000. */
  readonly retryGraceMs?: number;
  /** Base URL advertised in `resource_url`s when consumers reach this server by another address. */
  readonly publicUrl?: string;
  /** Extra `Host` values whose requests may set the advertised base. */
  readonly trustedHosts?: readonly string[];
  /**
   * How results write the abstract for the model: `"json"` (default; PROTOCOL §2, what the Python
   * reference's agents parse) or `"compact"` (a header row plus value rows; fewer tokens).
   */
  readonly abstractEncoding?: 'json' | 'compact';
  /** Also serve the tools over SLOP (`GET /tools`, `POST /tools/:tool_id`). Default: off. */
  readonly slop?: SlopOptions;
  /** The HTTP edge: allowed hosts and browser origins, bearer auth, body read timeout. */
  readonly edge?: EdgeEnvOptions;
}

const INSTRUCTIONS =
  'Weather data from the US National Weather Service (api.weather.gov), served with S2SP. ' +
  'The alert and forecast tools return S2SP tables (below); hand their rows to a consumer tool such as draw_chart. ' +
  'The s2sp_workflow prompt explains the steps.';

const readOnly = { readOnlyHint: true, openWorldHint: true, idempotentHint: true } as const;

const coordinateInputs = {
  latitude: z
    .number()
    .min(-90)
    .max(90)
    .describe('Degrees north, e.g. 30.2672 (rounded to 4 decimals)'),
  longitude: z
    .number()
    .min(-180)
    .max(180)
    .describe('Degrees east; negative in the US, e.g. -97.7431 (rounded to 4 decimals)'),
};

/**
 * Creates the NWS weather S2SP resource server: the resource tools `get_alerts`,
 * `get_alerts_for_point` and `get_forecast`, the resource `weather://cache` and the prompt
 * `s2sp_workflow`. It reads no environment: everything comes from `options`.
 *
 * @param options - NWS access, store, TTL and addresses
 * @returns the S2SP server; call `listen()` and/or `connectStdio()` on it
 *
 * @example
 * ```ts
 * const server = createWeatherServer({ nws: { baseUrl: replay.url } });
 * const { mcpUrl } = await server.listen({ port: 3001 });
 * ```
 */
export function createWeatherServer(options: WeatherServerOptions = {}): S2SPServer {
  const ttlSeconds = options.ttlSeconds ?? PROTOCOL.defaultTtlSeconds;
  const nws =
    options.nwsClient ??
    createNwsClient({ ...(options.logger && { logger: options.logger }), ...options.nws });
  const server = createS2SPServer({
    name: options.name ?? 'weather-alerts',
    version: WEATHER_SERVER_VERSION,
    instructions: INSTRUCTIONS,
    // The S2SP how-to goes into the instructions once, not into every tool (a shorter tools/list).
    toolGuidance: 'instructions',
    ...(options.abstractEncoding && { abstractEncoding: options.abstractEncoding }),
    ttlSeconds,
    ...(options.retryGraceMs !== undefined && { retryGraceMs: options.retryGraceMs }),
    ...(options.logger && { logger: options.logger }),
    ...(options.store && { store: options.store }),
    ...(options.publicUrl && { publicUrl: options.publicUrl }),
    ...(options.trustedHosts && { trustedHosts: options.trustedHosts }),
    ...options.edge,
  });

  server.resourceTool(
    'get_alerts',
    {
      title: 'Active NWS alerts for an area',
      description:
        'Active weather alerts (warnings, watches, advisories, statements) from the US National Weather Service for a state, territory or marine area. One row per alert: its NWS properties, about 30 columns; description and instruction are long.',
      inputSchema: {
        area: z.string().describe(
          // The state codes are common knowledge, and a wrong code gets the whole list back.
          `Two-letter NWS area code, any case: a US state or DC (e.g. TX), a territory (AS, GU, PR, VI, MP, PW, FM, MH) or a marine area (${Object.keys(NWS_MARINE_AREAS).join(', ')}).`,
        ),
      },
      rowSchema: alertRowSchema,
      annotations: readOnly,
    },
    async ({ area }) => {
      const code = validInput(() => parseAreaCode(area));
      const features = await withNwsErrors(() => nws.getActiveAlerts({ area: code }));
      return features.map((feature) => alertRow(feature.properties));
    },
  );

  server.resourceTool(
    'get_alerts_for_point',
    {
      title: 'Active NWS alerts at a point',
      description:
        'Active weather alerts from the US National Weather Service that cover a point (US locations only). One row per alert, with the same columns as get_alerts.',
      inputSchema: coordinateInputs,
      rowSchema: alertRowSchema,
      annotations: readOnly,
    },
    async ({ latitude, longitude }) => {
      const point = validInput(() => parseCoordinates(latitude, longitude));
      const features = await withNwsErrors(() => nws.getActiveAlerts({ point }));
      return features.map((feature) => alertRow(feature.properties));
    },
  );

  server.resourceTool(
    'get_forecast',
    {
      title: 'NWS forecast for a point',
      description:
        'The US National Weather Service forecast for a point (US locations only): one row per forecast period (day or night, about 14 periods over 7 days).',
      inputSchema: coordinateInputs,
      rowSchema: forecastPeriodSchema,
      annotations: readOnly,
    },
    ({ latitude, longitude }) => {
      const point = validInput(() => parseCoordinates(latitude, longitude));
      return withNwsErrors(() => nws.getForecastPeriods(point));
    },
  );

  server.use((mcp) => {
    mcp.registerResource(
      'cache',
      'weather://cache',
      {
        title: 'S2SP data-plane cache',
        description:
          'How many tables, rows and bytes wait on this server for a consumer to fetch them (no tokens, no data).',
        mimeType: 'application/json',
      },
      async (uri) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'application/json',
            text: JSON.stringify(await cacheStatus(server.store, ttlSeconds)),
          },
        ],
      }),
    );
    mcp.registerPrompt(
      's2sp_workflow',
      {
        title: 'S2SP workflow for weather data',
        description:
          'How to query the weather tools with abstract_domains and hand the rows to a consumer tool such as draw_chart.',
        argsSchema: {
          area: z.string().optional().describe('Area code for the examples, e.g. TX'),
          consumer_tool: z
            .string()
            .optional()
            .describe('The consumer tool to send rows to. Default draw_chart'),
        },
      },
      ({ area, consumer_tool }) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: workflowPromptText({
                ttlSeconds,
                ...(area && { area }),
                ...(consumer_tool && { consumerTool: consumer_tool }),
              }),
            },
          },
        ],
      }),
    );
  });

  if (options.slop) server.mountSlop(options.slop);
  server.mountA2S(weatherCapabilities);
  return server;
}
