import {
  A2S_VERSION,
  type A2SCapability,
  a2sVariable,
  dataPlaneStep,
  mcpToolStep,
  sealCapability,
} from '@s2sp/server/a2s';

/**
 * The weather-alerts pipelines as A2S capability documents: each MCP tool call is a Custom step,
 * and the server-to-server body fetch is an OpenAPI step holding only `POST /s2sp/data/{token}`.
 *
 * Variables use A2S's `${NAME}` placeholders: `${AREA}`, `${LATITUDE}`, `${LONGITUDE}` and
 * `${ABSTRACT_DOMAINS}` are inputs; `${RESOURCE_URL}` and `${ROW_IDS}` flow between steps (the
 * row ids are the `_row_id`s the agent kept from `${ABSTRACT_ROWS}`).
 *
 * @param baseUrl - the server's advertised base URL
 */
export async function weatherCapabilities(baseUrl: string): Promise<A2SCapability[]> {
  const endpoint = `${baseUrl}/mcp`;
  const domains = [new URL(baseUrl).host];
  const fetchBody = dataPlaneStep({
    id: 'fetchBody',
    serverUrl: baseUrl,
    inputTemplate: { url: a2sVariable('RESOURCE_URL'), body: { row_ids: a2sVariable('ROW_IDS') } },
    outputMapping: { ROWS: '$.body' },
  });
  const split = {
    ABSTRACT_ROWS: '$.abstract',
    RESOURCE_URL: '$.resource_url',
    EXPIRES_AT: '$.expires_at',
  };
  const pipeline = (
    name: string,
    description: string,
    tool: string,
    inputs: Record<string, unknown>,
  ) =>
    sealCapability({
      a2s: A2S_VERSION,
      name,
      description,
      domains,
      version: '1.0',
      execution: {
        type: 'sequence',
        steps: [
          mcpToolStep({
            id: tool,
            endpoint,
            tool,
            description:
              'S2SP resource tool: returns the abstract columns plus _row_id, and a single-use resource_url for the full rows.',
            inputTemplate: { ...inputs, abstract_domains: a2sVariable('ABSTRACT_DOMAINS') },
            outputMapping: split,
          }),
          fetchBody,
        ],
      },
    });
  return Promise.all([
    pipeline(
      'GetWeatherAlerts',
      'Active NWS weather alerts for a US state, territory or marine area, split by S2SP into abstract columns and a server-to-server body',
      'get_alerts',
      { area: a2sVariable('AREA') },
    ),
    pipeline(
      'GetWeatherAlertsForPoint',
      'Active NWS weather alerts at a US latitude/longitude, split by S2SP',
      'get_alerts_for_point',
      { latitude: a2sVariable('LATITUDE'), longitude: a2sVariable('LONGITUDE') },
    ),
    pipeline(
      'GetForecast',
      'The NWS forecast periods for a US latitude/longitude, split by S2SP',
      'get_forecast',
      { latitude: a2sVariable('LATITUDE'), longitude: a2sVariable('LONGITUDE') },
    ),
  ]);
}
