import type { A2SStep } from './schemas.js';

/**
 * An A2S variable placeholder, `${NAME}`: a capability's inputs and the values that flow between
 * its steps.
 *
 * @param name - the variable, conventionally UPPER_SNAKE_CASE
 */
export function a2sVariable(name: string): string {
  return `\${${name}}`;
}

/** One execution step. `format` says how `definition` is to be read. */

/** A Custom step that calls an MCP tool over Streamable HTTP. */
export function mcpToolStep(options: {
  id: string;
  endpoint: string;
  tool: string;
  description?: string;
  inputTemplate: Record<string, unknown>;
  outputMapping?: Record<string, string>;
}): A2SStep {
  return {
    id: options.id,
    format: 'Custom',
    definition: {
      protocol: 'MCP',
      transport: 'streamable-http',
      endpoint: options.endpoint,
      method: 'tools/call',
      tool: options.tool,
      ...(options.description && { description: options.description }),
    },
    input_template: { name: options.tool, arguments: options.inputTemplate },
    ...(options.outputMapping && { output_mapping: options.outputMapping }),
  };
}

/**
 * An OpenAPI step holding only the S2SP data-plane operation, `POST /s2sp/data/{token}`
 * (PROTOCOL §3), as A2S asks ("include only the necessary path").
 *
 * @param options.serverUrl - the data plane's base URL
 */
export function dataPlaneStep(options: {
  id: string;
  serverUrl: string;
  inputTemplate: Record<string, unknown>;
  outputMapping?: Record<string, string>;
}): A2SStep {
  const row = {
    type: 'object',
    required: ['_row_id'],
    properties: { _row_id: { type: 'integer', minimum: 0 } },
    additionalProperties: true,
  };
  const error = {
    description: 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return {
    id: options.id,
    format: 'OpenAPI',
    definition: {
      openapi: '3.0.1',
      info: {
        title: 'S2SP data plane',
        version: '1.0.0',
        description: 'Redeems a single-use resource_url for the full rows (server to server).',
      },
      servers: [{ url: options.serverUrl }],
      paths: {
        '/s2sp/data/{token}': {
          post: {
            summary: 'Fetch body rows (single use)',
            parameters: [
              {
                name: 'token',
                in: 'path',
                required: true,
                schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
              },
            ],
            requestBody: {
              required: false,
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    properties: {
                      row_ids: { type: 'array', items: { type: 'integer', minimum: 0 } },
                      columns: { type: 'array', items: { type: 'string' } },
                    },
                  },
                },
              },
            },
            responses: {
              '200': {
                description: 'The selected rows',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['body', 'total_rows'],
                      properties: {
                        body: { type: 'array', items: row },
                        total_rows: { type: 'integer' },
                        columns_returned: { type: 'array', items: { type: 'string' } },
                        missing_row_ids: { type: 'array', items: { type: 'integer' } },
                      },
                    },
                  },
                },
              },
              '400': error,
              '404': { ...error, description: 'Unknown, expired or already used' },
              '413': error,
              '415': error,
            },
          },
        },
      },
      components: {
        schemas: {
          Error: {
            type: 'object',
            properties: {
              error: {
                type: 'object',
                properties: {
                  code: { type: 'string' },
                  message: { type: 'string' },
                  status: { type: 'integer' },
                },
              },
            },
          },
        },
      },
    },
    input_template: options.inputTemplate,
    ...(options.outputMapping && { output_mapping: options.outputMapping }),
  };
}
