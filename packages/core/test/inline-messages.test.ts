import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The repository check behind `@s2sp/core/advice`: in the published packages, a model-facing
 * `new S2SPError(code, message)` states its facts in a short text and takes its advice from the
 * catalogue: `@s2sp/core/advice`, or the advice module of its own package (`src/advice.ts`). A long text written inline is where advice gets spelled a second way, so it fails
 * here with its file and line. `invalid_config` and `internal` are not model-facing (a
 * programming error, and a message never sent over the wire).
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['core', 'server', 'client', 'cache-redis', 'proxy'];
/** The advice modules: core's shared catalogue, and each package's own `src/advice.ts`. */
const isCatalogue = (path: string) =>
  path.startsWith(join('packages', 'core', 'src', 'advice')) ||
  /^packages\/[^/]+\/src\/(advice|guidance)\.ts$/.test(path);
const NOT_MODEL_FACING = new Set(['invalid_config', 'internal']);
/** Characters of inline text one message may hold: room for facts, not for advice as well. */
const MAX_INLINE_CHARS = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) => {
    const path = join(dir, item.name);
    if (item.isDirectory()) return sourceFiles(path);
    return item.name.endsWith('.ts') && !item.name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * The inline text of each literal in a message: a template literal counts its own text without
 * the substitutions; a `+` chain of literals counts as one.
 */
function literalTexts(node: ts.Node): string[] {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isTemplateExpression(node)) {
    const own = node.head.text + node.templateSpans.map((span) => span.literal.text).join('');
    return [own, ...node.templateSpans.flatMap((span) => literalTexts(span.expression))];
  }
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
    const parts = [...literalTexts(node.left), ...literalTexts(node.right)];
    return [parts.join('')];
  }
  const out: string[] = [];
  node.forEachChild((child) => {
    out.push(...literalTexts(child));
  });
  return out;
}

interface InlineMessage {
  readonly where: string;
  readonly chars: number;
}

function longInlineMessages(file: string, text = readFileSync(file, 'utf8')): InlineMessage[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022);
  const found: InlineMessage[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'S2SPError'
    ) {
      const [code, message] = node.arguments ?? [];
      const fixedCode = code && ts.isStringLiteral(code) ? code.text : undefined;
      if (message && !(fixedCode && NOT_MODEL_FACING.has(fixedCode))) {
        const chars = Math.max(0, ...literalTexts(message).map((text) => text.length));
        if (chars > MAX_INLINE_CHARS) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          found.push({ where: `${relative(ROOT, file)}:${line + 1}`, chars });
        }
      }
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe('model-facing error messages in the published packages', () => {
  it(`state their facts in at most ${MAX_INLINE_CHARS} inline characters and take their advice from an advice module`, () => {
    const files = PACKAGES.flatMap((name) => sourceFiles(join(ROOT, 'packages', name, 'src')));
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .filter((file) => !isCatalogue(relative(ROOT, file)))
      .flatMap((file) => longInlineMessages(file))
      .map(({ where, chars }) => `${where} (${chars} characters inline)`);
    expect(offenders).toEqual([]);
  });

  it('names the file and line of a long inline message, and passes facts plus an entry', () => {
    const file = join(ROOT, 'packages', 'server', 'src', 'sample.ts');
    const inline = `\nthrow new S2SPError('not_found', \`The thing \${a} is gone. ${'Call it again. '.repeat(5)}\`);`;
    expect(longInlineMessages(file, inline)).toEqual([
      { where: 'packages/server/src/sample.ts:2', chars: 95 },
    ]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample is TypeScript source text.
    const composed = "throw new S2SPError('not_found', `The thing ${a} is gone. ${advice}`);";
    expect(longInlineMessages(file, composed)).toEqual([]);
    const config = `throw new S2SPError('invalid_config', '${'x'.repeat(200)}');`;
    expect(longInlineMessages(file, config)).toEqual([]);
  });
});
