import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { S2SPError } from './errors.js';
import {
  byteSize,
  httpUrl,
  milliseconds,
  misspeltVariables,
  optionRows,
  parseOptions,
  positiveInteger,
  positiveNumber,
  readSettings,
  type SettingsSources,
  stringList,
} from './options.js';

const Schema = z.object({
  maxThings: positiveInteger().default(10).describe('Most things at once.'),
  ratio: positiveNumber({ max: 2 }).optional(),
  maxBytes: byteSize().default(4 * 1024 * 1024),
  timeoutMs: milliseconds({ min: 100, max: 600_000 })
    .default(10_000)
    .meta({ env: 'X_TIMEOUT_MS', flag: '--timeout-ms', key: 'timeout', description: 'How long.' }),
  publicUrl: httpUrl().optional().meta({ env: 'X_PUBLIC_URL' }),
  hosts: stringList(z.string().min(1)).optional().meta({ env: 'X_HOSTS', flag: '--host' }),
  mode: z.enum(['json', 'compact']).default('json'),
  auth: z
    .object({
      tokens: stringList(z.string().min(16)).meta({
        env: 'X_TOKENS',
        flag: '--token',
        key: 'tokens',
      }),
    })
    .optional(),
  nested: z
    .object({ limit: positiveInteger().default(4).meta({ env: 'X_LIMIT' }) })
    .default({ limit: 4 })
    .meta({ expand: true }),
});

type Env = NonNullable<SettingsSources['env']>;
const optionsFromEnv = (schema: z.ZodType, env: Env, context: { factory: string }) =>
  readSettings(schema, { env }, context);
const optionsFromFlags = (
  schema: z.ZodType,
  flags: ReadonlyMap<string, readonly string[]>,
  context: { factory: string },
) => readSettings(schema, { flags }, context);
const optionsFromFile = (
  schema: z.ZodType,
  document: Record<string, unknown>,
  context: { factory: string; file: string },
) => readSettings(schema, { file: { name: context.file, document } }, context);

function failure(run: () => unknown): S2SPError {
  try {
    run();
  } catch (error) {
    if (S2SPError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an S2SPError');
}

describe('parseOptions', () => {
  it('applies the defaults and normalises URLs', () => {
    expect(parseOptions(Schema, undefined, { factory: 'make' })).toEqual({
      maxThings: 10,
      maxBytes: 4 * 1024 * 1024,
      timeoutMs: 10_000,
      mode: 'json',
      nested: { limit: 4 },
    });
    const parsed = parseOptions(
      Schema,
      { maxThings: 3, ratio: 1.5, publicUrl: 'https://data.example.com/api/', hosts: ['a'] },
      { factory: 'make' },
    );
    expect(parsed).toMatchObject({
      maxThings: 3,
      ratio: 1.5,
      publicUrl: 'https://data.example.com/api',
      hosts: ['a'],
    });
  });

  it.each([
    [{ maxThings: 0 }, 'maxThings'],
    [{ maxThings: 1.5 }, 'maxThings'],
    [{ maxThings: '3' }, 'maxThings'],
    [{ maxThings: Number.NaN }, 'maxThings'],
    [{ ratio: 0 }, 'ratio'],
    [{ ratio: Number.POSITIVE_INFINITY }, 'ratio'],
    [{ maxBytes: -1 }, 'maxBytes'],
    [{ timeoutMs: 50 }, 'timeoutMs'],
    [{ timeoutMs: 600_001 }, 'timeoutMs'],
    [{ publicUrl: 'ftp://x' }, 'publicUrl'],
    [{ hosts: ['ok', ''] }, 'hosts'],
    [{ mode: 'yaml' }, 'mode'],
    [{ auth: { tokens: ['short'] } }, 'auth.tokens'],
    [{ nested: { limit: 0 } }, 'nested.limit'],
  ])('refuses %j with one invalid_config naming %s', (input, option) => {
    const error = failure(() => parseOptions(Schema, input, { factory: 'make' }));
    expect(error.code).toBe('invalid_config');
    expect(error.data).toEqual({ option });
  });

  it('refuses options that are not an object', () => {
    const error = failure(() => parseOptions(Schema, 'nope', { factory: 'make' }));
    expect([error.code, error.data]).toEqual(['invalid_config', { option: 'options' }]);
  });

  it('never quotes the value given: tokens and URLs with credentials stay out of the message', () => {
    const secret = 'https://user:hunter2-secret@data.example.com';
    const url = failure(() => parseOptions(Schema, { publicUrl: secret }, { factory: 'make' }));
    expect(url.message).not.toContain('hunter2');
    const token = failure(() =>
      parseOptions(Schema, { auth: { tokens: ['tiny-secret'] } }, { factory: 'make' }),
    );
    expect(token.message).not.toContain('tiny-secret');
  });

  it('names the option by the name the caller gives (a variable, a flag)', () => {
    const error = failure(() =>
      parseOptions(
        Schema,
        { auth: { tokens: ['x'] } },
        { factory: 'make', names: { auth: 'X_TOKENS' } },
      ),
    );
    expect(error.data).toEqual({ option: 'auth.tokens', variable: 'X_TOKENS' });
  });
});

describe('readSettings from one source', () => {
  it('map each option from its metadata, and only those given', () => {
    const fromEnv = optionsFromEnv(
      Schema,
      {
        X_TIMEOUT_MS: ' 2500 ',
        X_HOSTS: 'a, b,,',
        X_TOKENS: 'a-long-token-0123456',
        X_PUBLIC_URL: '',
      },
      { factory: 'environment' },
    );
    expect(fromEnv.options).toEqual({
      timeoutMs: 2500,
      hosts: ['a', 'b'],
      auth: { tokens: ['a-long-token-0123456'] },
    });
    expect(fromEnv.names).toEqual({
      timeoutMs: 'X_TIMEOUT_MS',
      hosts: 'X_HOSTS',
      'auth.tokens': 'X_TOKENS',
    });
    const flags = new Map([
      ['--timeout-ms', ['200', '300']],
      ['--host', ['a', 'b']],
    ]);
    expect(optionsFromFlags(Schema, flags, { factory: 'cli' }).options).toEqual({
      timeoutMs: 300,
      hosts: ['a', 'b'],
    });
    expect(
      optionsFromFile(Schema, { timeout: 700 }, { factory: 'file', file: 'f.yaml' }).options,
    ).toEqual({
      timeoutMs: 700,
    });
  });

  it('round-trips: what the environment sets parses as the option', () => {
    const { options } = optionsFromEnv(
      Schema,
      { X_TIMEOUT_MS: '2500', X_LIMIT: '7' },
      { factory: 'environment' },
    );
    expect(parseOptions(Schema, options, { factory: 'make' })).toMatchObject({
      timeoutMs: 2500,
      nested: { limit: 7 },
    });
  });

  it.each([
    [{ X_TIMEOUT_MS: '10' }, 'X_TIMEOUT_MS', 'timeoutMs'],
    [{ X_TIMEOUT_MS: 'soon' }, 'X_TIMEOUT_MS', 'timeoutMs'],
    [{ X_TIMEOUT_MS: '0x10' }, 'X_TIMEOUT_MS', 'timeoutMs'],
    [{ X_TOKENS: 'short' }, 'X_TOKENS', 'auth.tokens'],
    [{ X_PUBLIC_URL: 'redis://x' }, 'X_PUBLIC_URL', 'publicUrl'],
  ])('refuses %j naming the variable %s', (env, variable, option) => {
    const error = failure(() => optionsFromEnv(Schema, env, { factory: 'environment' }));
    expect([error.code, error.data]).toEqual(['invalid_config', { option, variable }]);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
  });

  it('names a flag and a file key', () => {
    const flag = failure(() =>
      optionsFromFlags(Schema, new Map([['--timeout-ms', ['1.5']]]), { factory: 'cli' }),
    );
    expect(flag.data).toEqual({ option: 'timeoutMs', variable: '--timeout-ms' });
    const key = failure(() =>
      optionsFromFile(Schema, { timeout: 5 }, { factory: 'file', file: 'p.yaml' }),
    );
    expect(key.data).toEqual({ option: 'timeoutMs', variable: 'p.yaml: timeout' });
  });
});

describe('optionRows', () => {
  it('read name, type, default, environment and description from the schema', () => {
    const rows = optionRows(Schema);
    expect(rows.map((row) => row.name)).toEqual([
      'maxThings',
      'ratio',
      'maxBytes',
      'timeoutMs',
      'publicUrl',
      'hosts',
      'mode',
      'auth',
      'nested.limit',
    ]);
    expect(rows.find((row) => row.name === 'maxBytes')).toMatchObject({
      type: 'bytes',
      default: '4 MiB',
    });
    expect(rows.find((row) => row.name === 'timeoutMs')).toMatchObject({
      type: 'ms',
      default: '10000',
      env: ['X_TIMEOUT_MS'],
      flags: ['--timeout-ms'],
      keys: ['timeout'],
      description: 'How long.',
    });
    expect(rows.find((row) => row.name === 'mode')).toMatchObject({
      type: '"json" | "compact"',
      default: '"json"',
    });
    expect(rows.find((row) => row.name === 'auth')?.env).toEqual(['X_TOKENS']);
    expect(rows[0]).toEqual({
      name: 'maxThings',
      type: 'integer',
      default: '10',
      env: [],
      flags: [],
      keys: [],
      description: 'Most things at once.',
    });
  });
});

describe('readSettings from every source', () => {
  const sources = (flags: [string, string[]][], file: Record<string, unknown>, env: Env) => ({
    flags: new Map(flags),
    file: { name: 'p.yaml', document: file },
    env,
  });

  it('lets a flag win over the file, the file over the environment, per option', () => {
    const read = readSettings(
      Schema,
      sources(
        [['--timeout-ms', ['300']]],
        { timeout: 200, tokens: ['file-token-0123456789'] },
        { X_TIMEOUT_MS: '100', X_TOKENS: 'env-token-0123456789', X_HOSTS: 'a,b', X_LIMIT: '7' },
      ),
      { factory: 'cli' },
    );
    expect(read.options).toEqual({
      timeoutMs: 300,
      auth: { tokens: ['file-token-0123456789'] },
      hosts: ['a', 'b'],
      nested: { limit: 7 },
    });
    expect(read.names).toEqual({
      timeoutMs: '--timeout-ms',
      'auth.tokens': 'p.yaml: tokens',
      hosts: 'X_HOSTS',
      'nested.limit': 'X_LIMIT',
    });
    // Nothing set: nothing returned, so the factory's defaults apply.
    expect(readSettings(Schema, sources([], {}, {}), { factory: 'cli' }).options).toEqual({});
    expect(
      parseOptions(Schema, readSettings(Schema, sources([], {}, {}), { factory: 'cli' }).options, {
        factory: 'make',
      }).timeoutMs,
    ).toBe(10_000);
  });

  it('checks every source, even one a higher source overrides', () => {
    const error = failure(() =>
      readSettings(Schema, sources([['--timeout-ms', ['300']]], {}, { X_TIMEOUT_MS: '5' }), {
        factory: 'cli',
      }),
    );
    expect(error.data).toEqual({ option: 'timeoutMs', variable: 'X_TIMEOUT_MS' });
  });

  it('refuses a file key no option names, naming the file and the key', () => {
    const error = failure(() =>
      readSettings(Schema, sources([], { timeuot: 5 }, {}), { factory: 'cli' }),
    );
    expect([error.code, error.data]).toEqual(['invalid_config', { variable: 'p.yaml: timeuot' }]);
  });

  it('reads numbers as decimal text only', () => {
    for (const text of ['1e3', '0x10', '-5', '1_000', ' ', '2.']) {
      const read = () => readSettings(Schema, { env: { X_LIMIT: text } }, { factory: 'env' });
      if (text.trim() === '') expect(read().options).toEqual({});
      else expect(failure(read).data).toEqual({ option: 'nested.limit', variable: 'X_LIMIT' });
    }
  });
});

describe('a list that must not be empty', () => {
  const Tokens = z.object({
    tokens: stringList(z.string().min(16), {
      nonEmpty: 'give at least one token, or leave the setting out to run without authentication',
    })
      .optional()
      .meta({ env: 'X_TOKENS', flag: '--token', key: 'tokens' }),
    hosts: stringList(z.string().min(1)).optional().meta({ env: 'X_HOSTS', key: 'hosts' }),
  });

  it.each([
    ['env ""', { env: { X_TOKENS: '' } }, 'X_TOKENS'],
    ['env ","', { env: { X_TOKENS: ',' } }, 'X_TOKENS'],
    ['env " "', { env: { X_TOKENS: ' ' } }, 'X_TOKENS'],
    ['env " , ,"', { env: { X_TOKENS: ' , ,' } }, 'X_TOKENS'],
    ['file []', { file: { name: 'p.yaml', document: { tokens: [] } } }, 'p.yaml: tokens'],
  ] as const)('is refused when set but empty: %s', (_, sources, variable) => {
    const error = failure(() => readSettings(Tokens, sources, { factory: 'server' }));
    expect([error.code, error.data]).toEqual(['invalid_config', { option: 'tokens', variable }]);
  });

  it('is refused the same way from a flag and from the options themselves', () => {
    const flag = failure(() =>
      readSettings(Tokens, { flags: new Map([['--token', ['']]]) }, { factory: 'server' }),
    );
    expect([flag.code, flag.data]).toEqual([
      'invalid_config',
      { option: 'tokens', variable: '--token' },
    ]);
    const given = failure(() => parseOptions(Tokens, { tokens: [] }, { factory: 'server' }));
    expect([given.code, given.data]).toEqual(['invalid_config', { option: 'tokens' }]);
  });

  it('is unset when its variable is absent, and a list that may be empty is unset when blank', () => {
    expect(readSettings(Tokens, { env: {} }, { factory: 'server' }).options).toEqual({});
    expect(
      readSettings(Tokens, { env: { X_HOSTS: ' , ', X_TOKENS: undefined } }, { factory: 's' })
        .options,
    ).toEqual({});
    expect(
      readSettings(Tokens, { env: { X_TOKENS: ',a-long-token-0123456,' } }, { factory: 's' })
        .options,
    ).toEqual({ tokens: ['a-long-token-0123456'] });
    expect(
      readSettings(Tokens, { file: { name: 'p.yaml', document: { hosts: [] } } }, { factory: 's' })
        .options,
    ).toEqual({ hosts: [] });
  });
});

describe('misspeltVariables', () => {
  it('names the setting a variable that looks like one of ours was meant to be', () => {
    const env = {
      X_TOKEN: 'a-long-token-0123456',
      x_public_url: 'https://x',
      X_PUBLICURL: 'https://x',
      X_TIMEOUTMS: '5',
      X_TIEMOUT_MS: '5',
      X_HOSTS: 'a',
      X_LIMIT: '3',
    };
    expect(
      misspeltVariables(env, [Schema]).map(({ variable, meant }) => [variable, meant]),
    ).toEqual([
      ['X_TOKEN', 'X_TOKENS'],
      ['x_public_url', 'X_PUBLIC_URL'],
      ['X_PUBLICURL', 'X_PUBLIC_URL'],
      ['X_TIMEOUTMS', 'X_TIMEOUT_MS'],
      ['X_TIEMOUT_MS', 'X_TIMEOUT_MS'],
    ]);
  });

  it('leaves alone the names of every schema given, and names of no family of ours', () => {
    const Other = z.object({ port: positiveInteger().optional().meta({ env: 'PORT' }) });
    const env = { X_TOKENS: 'a', PORT: '1', HOME: '/h', PATH: '/p', PORTS: '2', Y_TOKEN: 'y' };
    expect(misspeltVariables(env, [Schema, Other])).toEqual([]);
    // Only the schemas given are known: a name of another counts as nobody's.
    expect(misspeltVariables({ X_TOKEN: 'a' }, [Other])).toEqual([]);
    expect(misspeltVariables({ port: '1', X_TOKEN: undefined }, [Other])).toMatchObject([
      { variable: 'port', meant: 'PORT' },
    ]);
  });
});

describe("a configuration file's unknown key", () => {
  it('is named only when it is a slip of a real key: a file given by mistake is never quoted', () => {
    const secret = 'sk-fake-secret-0123456789abcdef';
    const error = failure(() =>
      readSettings(
        Schema,
        { file: { name: 'p.yaml', document: { [secret]: 'x' } } },
        {
          factory: 'cli',
        },
      ),
    );
    expect([error.code, error.data]).toEqual(['invalid_config', { variable: 'p.yaml' }]);
    expect(error.message).not.toContain(secret);
  });
});
