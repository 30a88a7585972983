import { z } from 'zod';
import { CONSUMER_TOOL_LINE } from '../guidance.js';

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
  abstract_data: jsonValue(
    'array',
    'The abstract rows to process, each with its _row_id, as the resource tool returned them (filtered to the rows you want): a JSON array, or its JSON text.',
    true,
  ).optional(),
  // Checked by the S2SP parser, whose error says what to pass instead.
  resource_url: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description:
        'The resource_url the resource tool returned (an http(s) URL in async mode, or the ddi:// handle your S2SP client gave you in sync mode). The tool fetches the remaining columns itself.',
    })
    .optional(),
  body_data: jsonValue(
    'array',
    'Body rows (with _row_id) when you have them inline instead of a resource_url: a JSON array or its JSON text. Omit when you pass resource_url.',
    true,
  ).optional(),
  column_mapping: jsonValue(
    'object',
    'Optional object renaming columns, {"oldName": "newName"}, or its JSON text.',
    true,
  ).optional(),
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
      description:
        'Instead of abstract_data: the _row_id values of the rows to process, e.g. [0,4,7], with resource_url.',
    })
    .optional(),
  filter: z
    .unknown()
    .meta({
      anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }],
      description:
        'Instead of abstract_data: the filter that selects the rows (same grammar as the resource tool), with resource_url.',
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
  return (
    `${description.trim()}\n\n` +
    'S2SP consumer: pass abstract_data (the abstract rows you chose, with _row_id) and the resource_url from the resource tool. ' +
    'The tool fetches the remaining columns directly from the resource server and merges them by _row_id; the full rows never pass through you. ' +
    'Instead of abstract_data you may pass row_ids (the _row_id values you keep) or the filter you used, with the resource_url.'
  );
}
