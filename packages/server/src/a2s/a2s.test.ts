import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { s2spErrorToResponse } from '../edge/error-response.js';
import {
  A2S_VERSION,
  a2sVariable,
  canonicalJson,
  capabilityChecksum,
  dataPlaneStep,
  mcpToolStep,
  mountA2S,
  sealCapability,
  toYaml,
  verifyCapability,
} from './index.js';

async function capability() {
  return sealCapability({
    a2s: A2S_VERSION,
    name: 'GetWeatherAlerts',
    description: 'Active NWS alerts, split by S2SP',
    domains: ['127.0.0.1:3001'],
    version: '1.0',
    execution: {
      type: 'sequence',
      steps: [
        mcpToolStep({
          id: 'getAlerts',
          endpoint: 'http://127.0.0.1:3001/mcp',
          tool: 'get_alerts',
          inputTemplate: { area: a2sVariable('AREA'), abstract_domains: 'event,severity' },
          outputMapping: { ABSTRACT: '$.abstract', RESOURCE_URL: '$.resource_url' },
        }),
        dataPlaneStep({
          id: 'fetchBody',
          serverUrl: 'http://127.0.0.1:3001',
          inputTemplate: {
            pathParameters: { token: a2sVariable('TOKEN') },
            body: { row_ids: a2sVariable('ROW_IDS') },
          },
          outputMapping: { ROWS: '$.body' },
        }),
      ],
    },
  });
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: [{ d: true, c: null }], é: 'x' })).toBe(
      '{"a":[{"c":null,"d":true}],"b":1,"é":"x"}',
    );
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/NaN/);
    expect(() => canonicalJson({ a: () => 1 })).toThrow(/only JSON values/);
  });
});

describe('capability documents', () => {
  it('are sealed with the SHA-256 of their canonical form without the checksum', async () => {
    const doc = await capability();
    expect(doc.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(await capabilityChecksum({ ...doc, checksum: 'ignored' })).toBe(doc.checksum);
    // Member order does not change the checksum.
    const reordered = Object.fromEntries(Object.entries(doc).reverse());
    expect(await verifyCapability(reordered)).toEqual({ valid: true });
  });

  it('fail verification when anything is changed', async () => {
    const doc = await capability();
    const tampered = structuredClone(doc);
    (tampered.execution.steps[0]?.definition as { endpoint: string }).endpoint =
      'http://evil.example/mcp';
    expect(await verifyCapability(tampered)).toEqual({
      valid: false,
      reason: 'checksum does not match the content',
    });
    expect(await verifyCapability({ ...doc, checksum: undefined })).toEqual({
      valid: false,
      reason: 'no checksum',
    });
    expect(await verifyCapability({ name: 'x' })).toEqual({
      valid: false,
      reason: 'not an A2S capability document',
    });
  });

  it('hold only the data-plane path in the OpenAPI step, and MCP calls as Custom steps', async () => {
    const doc = await capability();
    const [mcp, fetchStep] = doc.execution.steps;
    expect(mcp?.format).toBe('Custom');
    expect(mcp?.definition).toMatchObject({
      protocol: 'MCP',
      tool: 'get_alerts',
      method: 'tools/call',
    });
    expect(fetchStep?.format).toBe('OpenAPI');
    expect(Object.keys((fetchStep!.definition as { paths: object }).paths)).toEqual([
      '/s2sp/data/{token}',
    ]);
    expect(
      Object.keys(
        (fetchStep!.definition as { paths: Record<string, object> }).paths['/s2sp/data/{token}'] ??
          {},
      ),
    ).toEqual(['post']);
  });

  it('refuse to seal an invalid document', async () => {
    await expect(
      sealCapability({
        a2s: '1',
        name: '',
        description: '',
        domains: [],
        version: '1',
        execution: { type: 'sequence', steps: [] },
      }),
    ).rejects.toThrow(/Not a valid A2S capability/);
  });
});

describe('toYaml', () => {
  it('writes YAML that a YAML parser reads back to the same data', async () => {
    const doc = await capability();
    const tricky = {
      yes: 'no',
      'a key': ['true', 1, null, { '': '' }],
      nested: [[1, 2], []],
      empty: {},
      text: 'line\nbreak: "quoted" # not a comment',
    };
    for (const value of [doc, tricky]) expect(parseYaml(toYaml(value))).toEqual(value);
    expect(toYaml({ a: { b: ['x'] } })).toBe('a:\n  b:\n    - "x"');
    expect(toYaml({ steps: [{ id: 'a', x: [1] }] })).toBe('steps:\n  - id: "a"\n    x:\n      - 1');
  });
});

describe('mountA2S', () => {
  it('lists capabilities and serves each as JSON or YAML by Accept', async () => {
    const doc = await capability();
    const app = new Hono();
    mountA2S(app, () => [doc]);
    app.onError((error) => s2spErrorToResponse(error));
    const list = await app.request('/.well-known/a2s/capabilities');
    expect(await list.json()).toEqual({
      capabilities: [
        {
          name: 'GetWeatherAlerts',
          description: doc.description,
          version: '1.0',
          checksum: doc.checksum,
          url: '/.well-known/a2s/capabilities/GetWeatherAlerts',
        },
      ],
    });
    const json = await app.request('/.well-known/a2s/capabilities/GetWeatherAlerts');
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(await verifyCapability(await json.json())).toEqual({ valid: true });
    const yaml = await app.request('/.well-known/a2s/capabilities/GetWeatherAlerts', {
      headers: { accept: 'application/yaml' },
    });
    expect(yaml.headers.get('content-type')).toMatch(/application\/yaml/);
    expect(await verifyCapability(parseYaml(await yaml.text()))).toEqual({ valid: true });
    const missing = await app.request('/.well-known/a2s/capabilities/Nope');
    expect(missing.status).toBe(404);
  });
});

describe('a2sVariable', () => {
  it('writes the $-brace placeholder', () => {
    expect(a2sVariable('AREA')).toBe('$' + '{AREA}');
  });
});
