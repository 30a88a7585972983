import { codeAndDataOf } from '@s2sp/test-utils';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createS2SPServer, type ListeningServer, silentLogger } from '../src/index.js';

const alerts = [
  { event: 'Wind Advisory', severity: 'Moderate', description: 'North winds 25 to 35 mph.' },
  { event: 'Heat Advisory', severity: 'Minor', description: 'Heat index up to 110.' },
];

async function startSlopServer(
  options: Parameters<ReturnType<typeof createS2SPServer>['mountSlop']>[0] = {},
) {
  const server = createS2SPServer({
    name: 'slop-test',
    version: '1',
    logger: silentLogger,
    consumer: { destinations: 'any' }, // loopback resource servers
  });
  server
    .resourceTool(
      'get_alerts',
      {
        description: 'Active alerts.',
        inputSchema: { area: z.string().describe('Two-letter area code') },
      },
      ({ area }) => {
        if (area === 'FAIL') throw new Error('The NWS API is down; retry later.');
        return alerts;
      },
    )
    .consumerTool('count', { description: 'Counts rows.' }, (rows) => ({ count: rows.length }))
    .use((mcp) => {
      // The spec's own example tool, as an ordinary MCP tool.
      mcp.registerTool(
        'calculator',
        {
          description: 'Performs mathematical calculations',
          inputSchema: { expression: z.string().describe('Mathematical expression to evaluate') },
        },
        ({ expression }) => {
          const match = /^\s*(\d+)\s*\+\s*(\d+)\s*$/.exec(expression);
          return {
            content: [{ type: 'text', text: String(Number(match?.[1]) + Number(match?.[2])) }],
          };
        },
      );
    })
    .mountSlop(options);
  const listening = await server.listen();
  return {
    server,
    listening,
    async [Symbol.asyncDispose]() {
      await server.close();
    },
  };
}

function post(
  listening: ListeningServer,
  tool: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${listening.url}/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

type ErrorBody = { error: { code: string; message: string; status: number } };

describe('SLOP surface', () => {
  it('GET /tools lists every tool with id, description and parameters (SLOP §4.2.1)', async () => {
    await using s = await startSlopServer();
    const response = await fetch(`${s.listening.url}/tools`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as {
      tools: {
        id: string;
        description: string;
        parameters: Record<string, { type?: string; description?: string; required?: boolean }>;
      }[];
    };
    expect(tools.map((t) => t.id)).toEqual(['get_alerts', 'count', 'calculator']);
    const calculator = tools.find((t) => t.id === 'calculator');
    expect(calculator).toEqual({
      id: 'calculator',
      description: 'Performs mathematical calculations',
      parameters: {
        expression: {
          type: 'string',
          description: 'Mathematical expression to evaluate',
          required: true,
        },
      },
    });
    const getAlerts = tools.find((t) => t.id === 'get_alerts');
    expect(Object.keys(getAlerts?.parameters ?? {})).toEqual([
      'area',
      'abstract_domains',
      'mode',
      'filter',
      'cursor',
    ]);
    expect(getAlerts?.description).toMatch(/S2SP: this tool returns a table/);
  });

  it('POST /tools/calculator answers {"result": 4} (SLOP §4.2.2)', async () => {
    await using s = await startSlopServer();
    const response = await post(s.listening, 'calculator', { expression: '2 + 2' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ result: 4 });
  });

  it('gives a SLOP agent the S2SP split: abstract in the result, the body behind resource_url', async () => {
    await using s = await startSlopServer();
    const plain = (await (await post(s.listening, 'get_alerts', { area: 'TX' })).json()) as {
      result: unknown;
    };
    expect(plain.result).toEqual(alerts);

    const split = (await (
      await post(s.listening, 'get_alerts', { area: 'TX', abstract_domains: 'event' })
    ).json()) as { result: { abstract: unknown[]; resource_url: string } };
    expect(split.result.abstract).toEqual([
      { _row_id: 0, event: 'Wind Advisory' },
      { _row_id: 1, event: 'Heat Advisory' },
    ]);
    expect(JSON.stringify(split)).not.toContain('North winds');
    const counted = (await (
      await post(s.listening, 'count', {
        abstract_data: JSON.stringify(split.result.abstract),
        resource_url: split.result.resource_url,
      })
    ).json()) as { result: unknown };
    expect(counted).toEqual({ result: { count: 2 } });
  });

  it.each([
    [
      'an unknown tool',
      'nope',
      {},
      404,
      'not_found',
      /No tool "nope"\. GET \/tools lists the tools: get_alerts, count, calculator/,
    ],
    ['bad JSON', 'calculator', '{"expression":', 400, 'invalid_request', /not valid JSON/],
    ['a non-object body', 'calculator', '[1,2]', 400, 'invalid_request', /not a JSON object/],
    [
      'arguments that fail the schema',
      'calculator',
      { expression: 4 },
      400,
      'invalid_request',
      /Input validation error/,
    ],
    [
      'an unknown abstract column',
      'get_alerts',
      { area: 'TX', abstract_domains: 'colour' },
      400,
      'invalid_request',
      /Unknown abstract_domains column: "colour"/,
    ],
    [
      'an unreachable resource server',
      'count',
      {
        abstract_data: '[{"_row_id":0}]',
        resource_url: 'http://127.0.0.1:9/s2sp/data/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      },
      502,
      'upstream_error',
      /resource server at .* was unreachable/,
    ],
    [
      'a failing handler',
      'get_alerts',
      { area: 'FAIL' },
      500,
      'tool_error',
      /The NWS API is down; retry later\./,
    ],
  ])(
    'answers %s in the SLOP error shape (SLOP §5)',
    async (_name, tool, body, status, code, message) => {
      await using s = await startSlopServer();
      const response = await post(s.listening, tool, body);
      expect(response.status).toBe(status);
      const error = (await response.json()) as ErrorBody;
      expect(error.error).toMatchObject({ code, status });
      expect(error.error.message).toMatch(message);
    },
  );

  it('answers other methods with 405', async () => {
    await using s = await startSlopServer();
    expect((await fetch(`${s.listening.url}/tools`, { method: 'POST' })).status).toBe(405);
    const get = await fetch(`${s.listening.url}/tools/calculator`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('requires a bearer token when configured (401), compared exactly', async () => {
    await using s = await startSlopServer({ bearerTokens: ['a-long-enough-secret-token'] });
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-of-some-length' },
      { authorization: 'Basic a-long-enough-secret-token' },
      { authorization: 'Bearer a-long-enough-secret-tokenX' },
    ];
    for (const headers of attempts) {
      const response = await post(s.listening, 'calculator', { expression: '1 + 1' }, headers);
      expect(response.status).toBe(401);
      expect(((await response.json()) as ErrorBody).error.code).toBe('unauthorized');
    }
    const ok = await post(
      s.listening,
      'calculator',
      { expression: '1 + 1' },
      { authorization: 'Bearer a-long-enough-secret-token' },
    );
    expect(await ok.json()).toEqual({ result: 2 });
    // MCP and the data plane are not behind SLOP's token.
    expect((await fetch(`${s.listening.url}/s2sp/health`)).status).toBe(200);
  });

  it('checks X-SLOP-Scope when configured (403)', async () => {
    await using s = await startSlopServer({ requireScopes: true });
    const denied = await post(
      s.listening,
      'calculator',
      { expression: '1 + 1' },
      { 'x-slop-scope': 'chat.read' },
    );
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as ErrorBody).error.message).toMatch(
      /X-SLOP-Scope with one of tools\.\*, tools\.execute, tools\.execute\.calculator/,
    );
    expect(
      (
        await post(
          s.listening,
          'calculator',
          { expression: '1 + 1' },
          { 'x-slop-scope': 'tools.execute.get_alerts' },
        )
      ).status,
    ).toBe(403);
    for (const scope of ['tools.*', 'chat.read, tools.execute', 'tools.execute.calculator']) {
      expect(
        (await post(s.listening, 'calculator', { expression: '1 + 1' }, { 'x-slop-scope': scope }))
          .status,
      ).toBe(200);
    }
    expect((await fetch(`${s.listening.url}/tools`)).status).toBe(403);
    expect(
      (await fetch(`${s.listening.url}/tools`, { headers: { 'x-slop-scope': 'tools.read' } }))
        .status,
    ).toBe(200);
  });

  it('refuses weak tokens at configuration time', () => {
    const server = createS2SPServer({ name: 'x', version: '1', logger: silentLogger });
    expect(codeAndDataOf(() => server.mountSlop({ bearerTokens: ['short'] }))).toEqual([
      'invalid_config',
      { option: 'bearerTokens' },
    ]);
  });
});
