import { describe, expect, it } from 'vitest';
import type { CatalogueColumn } from './column-catalogue.js';
import { createLearnedColumns } from './learned-columns.js';

const columns = (...names: string[]): CatalogueColumn[] =>
  names.map((name) => ({ name, tokensPerRow: 3, distinct: 0.5 }));

const clientsOf = (learned: ReturnType<typeof createLearnedColumns>) =>
  learned.entries().map(([client]) => client);

describe('createLearnedColumns', () => {
  it('keeps each client’s catalogue to itself', () => {
    const learned = createLearnedColumns();
    learned.set('client:a', 'rows', columns('id', 'city'), 2);
    expect(learned.get('client:a', 'rows')?.columns.map((c) => c.name)).toEqual(['id', 'city']);
    expect(learned.get('client:b', 'rows')).toBeUndefined();
    expect(learned.get('client:a', 'other')).toBeUndefined();
  });

  it('says when a client’s listing changes: a new tool or new names, not new costs', () => {
    const learned = createLearnedColumns();
    expect(learned.set('a', 'rows', columns('id', 'city'), 2)).toBe(true);
    expect(
      learned.set(
        'a',
        'rows',
        [{ name: 'id', tokensPerRow: 9, distinct: 1 }, ...columns('city')],
        2,
      ),
    ).toBe(false);
    expect(learned.get('a', 'rows')?.columns[0]?.tokensPerRow).toBe(9);
    expect(learned.set('a', 'rows', columns('id', 'town'), 2)).toBe(true);
    expect(learned.set('a', 'rows', columns('id', 'town'), 3)).toBe(true);
    // The same table for another client is new to that client.
    expect(learned.set('b', 'rows', columns('id', 'town'), 3)).toBe(true);
  });

  it('keeps 50 columns of 64 characters, and the table’s real width', () => {
    const learned = createLearnedColumns();
    const wide = Array.from(
      { length: 60 },
      (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(80)}`,
    );
    learned.set('a', 'wide', columns(...wide), 60);
    const table = learned.get('a', 'wide');
    expect(table?.columns).toHaveLength(50);
    expect(table?.columns.map((c) => c.name)).toEqual(wide.slice(0, 50).map((n) => n.slice(0, 64)));
    expect(table?.total).toBe(60);
    // A total smaller than what was measured is not believed.
    learned.set('a', 'narrow', columns('a', 'b', 'c'), 1);
    expect(learned.get('a', 'narrow')?.total).toBe(3);
  });

  it('drops the least recently used client first, and counts a new result as use', () => {
    const learned = createLearnedColumns({ maxClients: 3 });
    for (const client of ['a', 'b', 'c']) learned.set(client, 'rows', columns('id'), 1);
    learned.set('a', 'rows', columns('id'), 1);
    learned.set('d', 'rows', columns('id'), 1);
    expect(clientsOf(learned)).toEqual(['c', 'a', 'd']);
    expect(learned.get('b', 'rows')).toBeUndefined();
    learned.set('e', 'rows', columns('id'), 1);
    expect(clientsOf(learned)).toEqual(['a', 'd', 'e']);
    expect(learned.size()).toBe(3);
  });

  it('drops a client’s least recently used tool first', () => {
    const learned = createLearnedColumns({ maxToolsPerClient: 3 });
    for (const tool of ['t1', 't2', 't3']) learned.set('a', tool, columns('id'), 1);
    learned.set('a', 't1', columns('id'), 1);
    learned.set('a', 't4', columns('id'), 1);
    const tools = learned.entries()[0]?.[1].map(([tool]) => tool);
    expect(tools).toEqual(['t3', 't1', 't4']);
    expect(learned.get('a', 't2')).toBeUndefined();
    // Another client's tools are counted apart.
    learned.set('b', 't2', columns('id'), 1);
    expect(learned.entries()[0]?.[1]).toHaveLength(3);
  });

  it('defaults to 1,000 clients × 100 tools', () => {
    const learned = createLearnedColumns();
    for (let i = 0; i < 1_001; i++) learned.set(`address:${i}`, 'rows', columns('id'), 1);
    expect(learned.size()).toBe(1_000);
    expect(learned.get('address:0', 'rows')).toBeUndefined();
    expect(learned.get('address:1', 'rows')).toBeDefined();
    for (let i = 0; i < 101; i++) learned.set('address:1', `t${i}`, columns('id'), 1);
    const tools = learned.entries().find(([client]) => client === 'address:1')?.[1] ?? [];
    expect(tools.map(([tool]) => tool)).toEqual(Array.from({ length: 100 }, (_, i) => `t${i + 1}`));
  });
});
