import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Every name (values and types) an entry point exports, read by the TypeScript checker. */
function exportedNames(entry: string): string[] {
  const file = fileURLToPath(new URL(entry, import.meta.url));
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) throw new Error(`cannot read ${entry}`);
  return checker.getExportsOfModule(symbol).map((s) => s.getName());
}

describe("@s2sp/core's main entry", () => {
  it('is the protocol and stays small: at most 35 names, values and types alike', () => {
    const names = exportedNames('../src/index.ts');
    expect(names.length).toBeLessThanOrEqual(35);
    // The protocol's pillars are there; result building and consumer parsing are not.
    expect(names).toEqual(
      expect.arrayContaining(['S2SPError', 'PROTOCOL', 'parseRowFilter', 'fetchBody']),
    );
    for (const moved of ['splitColumns', 'parseConsumerArguments', 'mergeRows', 'estimateTokens'])
      expect(names).not.toContain(moved);
  });
});
