import { z } from 'zod';
import { CONSUMER_PARAMETER_TEXT, CONSUMER_TOOL_HOW_TO, CONSUMER_TOOL_LINE } from '../guidance.js';

// Accepts JSON text or the parsed value, and says so in the JSON Schema (`anyOf`), so that clients
// validating arguments against it (LangChain, Mastra) pass arrays and objects through. Row objects
// have open keys; `additionalProperties` is left unsaid because strict-schema converters refuse
// open objects. Optional ones accept `null` as absent (strict-schema clients send it).
const jsonValue = (shape: 'array' | 'object', description: string, optional = false) =>
  z.unknown().meta({
    anyOf: [
      { type: 'string' },
      shape === 'array' ? { type: 'array', items: { type: 'object' } } : { type: 'object' },
      ...(optional ? [{ type: 'null' }] : []),
    ],
    description,
  });

/** The four parameters S2SP adds to every consumer tool (PROTOCOL §4). */
export const consumerParameters = {
  abstract_data: jsonValue('array', CONSUMER_PARAMETER_TEXT.abstract_data, true).optional(),
  // Checked by the S2SP parser, whose error says what to pass instead.
  resource_url: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: CONSUMER_PARAMETER_TEXT.resource_url,
    })
    .optional(),
  body_data: jsonValue('array', CONSUMER_PARAMETER_TEXT.body_data, true).optional(),
  column_mapping: jsonValue('object', CONSUMER_PARAMETER_TEXT.column_mapping, true).optional(),
};

/**
 * The optional parameters S2SP adds to consumer tools besides the four of PROTOCOL §4 (hand-off
 * extensions, PROTOCOL §7). A tool declaring a parameter of the same name keeps its own.
 */
export const consumerExtensionParameters = {
  row_ids: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'integer' } }, { type: 'null' }],
      description: CONSUMER_PARAMETER_TEXT.row_ids,
    })
    .optional(),
  filter: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }],
      description: CONSUMER_PARAMETER_TEXT.filter,
    })
    .optional(),
};

/** The consumer extension parameters a tool gets: those its own parameters do not already use. */
export function consumerExtensionsFor(shape: z.ZodRawShape): z.ZodRawShape {
  return Object.fromEntries(
    Object.entries(consumerExtensionParameters).filter(([key]) => !Object.hasOwn(shape, key)),
  );
}

/** The tool description: the author's text, then how to pass S2SP data. */
export function consumerToolDescription(
  description: string,
  guidance: 'description' | 'instructions' = 'description',
): string {
  if (guidance === 'instructions') return `${description.trim()}\n\n${CONSUMER_TOOL_LINE}`;
  return `${description.trim()}\n\n${CONSUMER_TOOL_HOW_TO}`;
}
