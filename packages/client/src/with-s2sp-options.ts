import { PROTOCOL, S2SPError } from '@s2sp/core';
import { parseOptions } from '@s2sp/core/options';
import { z } from 'zod';
import { S2SPDispatcher } from './dispatcher.js';

/** Options every `withS2SP` adapter takes. */
export interface WithS2SPOptions {
  /**
   * The dispatcher whose buffer holds sync-mode bodies. Use one per agent and pass it to every
   * `withS2SP` call of that agent, so a handle from one MCP server's tool can be redeemed by
   * another server's tool. Default: a new one per call.
   */
  readonly dispatcher?: S2SPDispatcher;
  /**
   * The encoding your model reads async results in, declared on every tool call (PROTOCOL §7.5):
   * `"compact"` (a header row, then value rows: the fewest tokens) or `"json"` (§2 JSON text,
   * even from a server whose default is compact). With `"compact"` the adapter also tells the
   * model how to read the rows, in each S2SP resource tool's description. A server that does not
   * know the declaration answers §2 JSON, which the adapters and consumers read as well. Default:
   * nothing declared, the server's default (requests stay as they were).
   */
  readonly abstractEncoding?: (typeof PROTOCOL.abstractEncodings)[number];
  /**
   * Where your adapter reads a sync result's body, declared on every tool call (PROTOCOL §7.11):
   * `"structured"` has a server that implements it leave the body out of the result's text and
   * send it in `structuredContent` only, so the rows cross the wire once instead of twice; the
   * model reads the same text either way. `"both"` asks for §2 explicitly. Default: nothing
   * declared (requests stay as they were).
   */
  readonly syncBody?: (typeof PROTOCOL.syncBodyPlaces)[number];
}

/** The options of every `withS2SP`: their rules. */
const WithS2SPOptionsSchema = z.object({
  // Not checked: the dispatcher may come from another copy of this package.
  dispatcher: z.custom<S2SPDispatcher>().optional(),
  abstractEncoding: z
    .enum(PROTOCOL.abstractEncodings)
    .optional()
    .describe('The encoding declared on every tool call; default: none (the server’s).'),
  syncBody: z
    .enum(PROTOCOL.syncBodyPlaces)
    .optional()
    .describe('Where a sync body is read, declared on every tool call; default: none (both).'),
} satisfies Record<keyof WithS2SPOptions, z.ZodType>);

/** What happens without each declaring option, for an adapter that cannot declare it. */
const UNDECLARED = {
  abstractEncoding:
    "Leave the option out (the server's default encoding applies), or set the server's own abstractEncoding.",
  syncBody:
    'Leave the option out: sync results then carry their body in the text too (PROTOCOL §2), which this adapter reads.',
} as const;

/** An adapter's options, checked and resolved. */
export interface AdapterSetup {
  /** The shared dispatcher, or a fresh one. */
  readonly dispatcher: S2SPDispatcher;
  /** The `_meta` entries every tool call carries, or `undefined` when it carries none of ours. */
  readonly declared: Readonly<Record<string, string>> | undefined;
  /** Whether the model must be told how to read compact rows. */
  readonly compact: boolean;
}

/**
 * Checks an adapter's options once and resolves them.
 *
 * @param options - the options the application passed
 * @param adapter - the adapter's subpath (`@s2sp/client/ai-sdk`), named in errors, and, for a
 *   framework that gives it no way to set a call's `_meta`, why (`abstractEncoding` and `syncBody`
 *   are then refused)
 * @throws S2SPError `invalid_config` (with `data.option`) for an option it cannot take
 */
export function adapterSetup(
  options: WithS2SPOptions | undefined,
  adapter: { readonly name: string; readonly cannotDeclare?: string },
): AdapterSetup {
  const factory = `withS2SP (${adapter.name})`;
  const { dispatcher, abstractEncoding, syncBody } = parseOptions(WithS2SPOptionsSchema, options, {
    factory,
  });
  const declared = {
    ...(abstractEncoding !== undefined && { [PROTOCOL.abstractEncodingMeta]: abstractEncoding }),
    ...(syncBody !== undefined && { [PROTOCOL.syncBodyMeta]: syncBody }),
  };
  // The first declaring option given, for an adapter that can declare none.
  const given = { abstractEncoding, syncBody };
  const refused =
    adapter.cannotDeclare === undefined
      ? undefined
      : (['abstractEncoding', 'syncBody'] as const).find((option) => given[option] !== undefined);
  if (refused !== undefined) {
    throw new S2SPError(
      'invalid_config',
      `${factory} cannot declare ${refused}: ${adapter.cannotDeclare}. ${UNDECLARED[refused]}`,
      { data: { option: refused } },
    );
  }
  return {
    dispatcher: dispatcher ?? new S2SPDispatcher(),
    declared: Object.keys(declared).length === 0 ? undefined : declared,
    compact: abstractEncoding === 'compact',
  };
}
