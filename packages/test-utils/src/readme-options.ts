/**
 * Checks a README's options table against the options schema it documents, so the table cannot
 * drift from the code: `@s2sp/core/options`'s `optionRows(schema)` gives the rows the schema
 * has, and this reads the table that follows a `<!-- options: NAME -->` line.
 */
import { readFileSync } from 'node:fs';

/** What the check needs of a schema's row (the shape of `OptionRow` from `@s2sp/core/options`). */
export interface DocumentedOption {
  readonly name: string;
  readonly default: string;
  readonly env: readonly string[];
  readonly flags: readonly string[];
}

/** A Markdown table as cells: the header and the rows. */
export interface Table {
  readonly header: string[];
  readonly rows: string[][];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/**
 * The table right after the line `<!-- marker -->` (blank lines between are allowed).
 *
 * @param text - Markdown
 * @param marker - the comment's text: `options: createS2SPServer`, `adapters`
 */
export function tableAfter(text: string, marker: string): Table | undefined {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.trim() === `<!-- ${marker} -->`);
  if (at < 0) return undefined;
  let i = at + 1;
  while (lines[i]?.trim() === '') i++;
  const table: string[] = [];
  while (lines[i]?.trim().startsWith('|')) table.push(lines[i++] as string);
  const [header, , ...rows] = table;
  return header === undefined ? undefined : { header: cells(header), rows: rows.map(cells) };
}

/** The first `code` span of a cell: the option's name in `` `consumer.timeoutMs` … ``. */
function codeName(cell: string): string {
  return /`([^`]+)`/.exec(cell)?.[1] ?? cell;
}

/** A default as written, compared loosely: no backticks, spaces, digit separators. */
function normalDefault(text: string): string {
  const plain = text
    .replace(/`/g, '')
    .replace(/(\d)[ ,_](?=\d{3}\b)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return plain === '' || plain === '—' ? '—' : plain;
}

/**
 * The differences between a README's options table (after `<!-- options: marker -->`) and the
 * schema's rows: missing and extra rows, and, where the table has a Default or an Environment
 * column, different defaults and variables. Each difference names the README and the option.
 *
 * @param readmePath - the README's path
 * @param marker - the name in `<!-- options: NAME -->`
 * @param options - the schema's rows (`optionRows(schema)`)
 * @returns one sentence per difference; empty when the table matches
 */
export function readmeOptionsDiff(
  readmePath: string,
  marker: string,
  options: readonly DocumentedOption[],
): string[] {
  const table = tableAfter(readFileSync(readmePath, 'utf8'), `options: ${marker}`);
  if (!table) return [`${readmePath}: no table after <!-- options: ${marker} -->`];
  const defaultColumn = table.header.findIndex((cell) => /^default$/i.test(cell));
  const envColumn = table.header.findIndex((cell) => /^environment$/i.test(cell));
  const documented = new Map(table.rows.map((row) => [codeName(row[0] ?? ''), row]));
  const differences: string[] = [];
  for (const option of options) {
    const row = documented.get(option.name);
    if (!row) {
      differences.push(`${readmePath}: option ${option.name} of ${marker} has no row`);
      continue;
    }
    if (defaultColumn >= 0) {
      const written = normalDefault(row[defaultColumn] ?? '');
      if (written !== normalDefault(option.default))
        differences.push(
          `${readmePath}: option ${option.name} of ${marker}: the README says default ${written}, the schema ${normalDefault(option.default)}`,
        );
    }
    if (envColumn >= 0) {
      const written = [...(row[envColumn] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
      if (written.join(',') !== option.env.join(','))
        differences.push(
          `${readmePath}: option ${option.name} of ${marker}: the README names ${written.join(', ') || 'no variable'}, the schema ${option.env.join(', ') || 'none'}`,
        );
    }
  }
  const known = new Set(options.map((option) => option.name));
  for (const name of documented.keys())
    if (!known.has(name))
      differences.push(`${readmePath}: row ${name} is not an option of ${marker}`);
  return differences;
}

/**
 * The flags a schema's options have (`flags` of its rows) that a README's flag table (after
 * `<!-- options: marker -->`, flags in its first column) does not list.
 *
 * @param readmePath - the README's path
 * @param marker - the name in `<!-- options: NAME -->`
 * @param options - the schema's rows (`optionRows(schema)`)
 */
export function readmeFlagsDiff(
  readmePath: string,
  marker: string,
  options: readonly DocumentedOption[],
): string[] {
  const table = tableAfter(readFileSync(readmePath, 'utf8'), `options: ${marker}`);
  if (!table) return [`${readmePath}: no table after <!-- options: ${marker} -->`];
  const listed = new Set(table.rows.map((row) => /`(--[a-z-]+)/.exec(row[0] ?? '')?.[1]));
  return options.flatMap((option) =>
    option.flags
      .filter((flag) => !listed.has(flag))
      .map((flag) => `${readmePath}: flag ${flag} (option ${option.name}) of ${marker} has no row`),
  );
}
