import { PROTOCOL } from '@s2sp/core';
import { compactAbstractReading } from '@s2sp/core/advice';
import { isPlainObject } from '@s2sp/core/json';

/**
 * The JSON Schema of a tool's input: as `tools/list` gives it, or inside a Standard JSON Schema
 * (`~standard.jsonSchema`), the form Mastra turns it into.
 */
function jsonSchemaOf(inputSchema: unknown): unknown {
  if (typeof inputSchema !== 'object' || inputSchema === null) return undefined;
  const standard = (inputSchema as { '~standard'?: { jsonSchema?: { input?: unknown } } })[
    '~standard'
  ];
  const input = standard?.jsonSchema?.input;
  if (typeof input !== 'function') return inputSchema;
  try {
    return input({ target: 'draft-07' });
  } catch {
    return undefined;
  }
}

/**
 * Whether a tool's input schema (JSON Schema, as `tools/list` gives it, or a Standard JSON
 * Schema) takes the parameters of an S2SP resource tool (PROTOCOL §2): the tools whose results
 * carry an abstract.
 *
 * @param inputSchema - the tool's `inputSchema`
 */
export function isResourceToolSchema(inputSchema: unknown): boolean {
  const schema = jsonSchemaOf(inputSchema);
  const properties = isPlainObject(schema) ? schema.properties : undefined;
  return (
    isPlainObject(properties) &&
    PROTOCOL.resourceToolParameters.every((name) => Object.hasOwn(properties, name))
  );
}

/**
 * A tool definition as the model will read it when the host declares the compact encoding
 * (PROTOCOL §7.5): an S2SP resource tool's description ends with how to read the compact rows,
 * which the server's `instructions` say only when compact is the server's own default. Any other
 * tool comes back as it was.
 *
 * @param tool - a tool definition from `tools/list`
 * @example withCompactReading({ name: 'get_alerts', description: 'Alerts.', inputSchema })
 */
export function withCompactReading<TTool extends { description?: string; inputSchema?: unknown }>(
  tool: TTool,
): TTool {
  if (!isResourceToolSchema(tool.inputSchema)) return tool;
  return { ...tool, description: compactDescription(tool.description) };
}

/**
 * A resource tool's description with how to read compact rows at its end.
 *
 * @param description - the description the server gave, if any
 */
export function compactDescription(description: string | undefined): string {
  return description ? `${description} ${compactAbstractReading}` : compactAbstractReading;
}
