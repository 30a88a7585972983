import { compactAbstractReading } from '@s2sp/core/advice';
import { describe, expect, it } from 'vitest';
import { compactDescription, isResourceToolSchema, withCompactReading } from './compact-reading.js';

const RESOURCE_SCHEMA = {
  type: 'object',
  properties: { area: { type: 'string' }, abstract_domains: {}, mode: {} },
};
const CONSUMER_SCHEMA = { type: 'object', properties: { abstract_data: {}, resource_url: {} } };

describe('isResourceToolSchema', () => {
  it('knows a resource tool by its S2SP parameters, in JSON Schema or a Standard JSON Schema', () => {
    expect(isResourceToolSchema(RESOURCE_SCHEMA)).toBe(true);
    const standard = { '~standard': { jsonSchema: { input: () => RESOURCE_SCHEMA } } };
    expect(isResourceToolSchema(standard)).toBe(true);
  });

  it('refuses consumer tools, plain tools and what is no schema', () => {
    expect(isResourceToolSchema(CONSUMER_SCHEMA)).toBe(false);
    expect(isResourceToolSchema({ properties: { abstract_domains: {} } })).toBe(false);
    expect(isResourceToolSchema(undefined)).toBe(false);
    expect(isResourceToolSchema('abstract_domains')).toBe(false);
    const broken = {
      '~standard': {
        jsonSchema: {
          input: () => {
            throw new Error('no JSON Schema for this target');
          },
        },
      },
    };
    expect(isResourceToolSchema(broken)).toBe(false);
  });
});

describe('withCompactReading', () => {
  it('ends a resource tool’s description with how to read compact rows', () => {
    const tool = { name: 'get_alerts', description: 'Alerts.', inputSchema: RESOURCE_SCHEMA };
    expect(withCompactReading(tool)).toEqual({
      ...tool,
      description: `Alerts. ${compactAbstractReading}`,
    });
    expect(compactDescription(undefined)).toBe(compactAbstractReading);
  });

  it('leaves any other tool as it was', () => {
    const tool = { name: 'summarise', description: 'Sums.', inputSchema: CONSUMER_SCHEMA };
    expect(withCompactReading(tool)).toBe(tool);
  });
});
