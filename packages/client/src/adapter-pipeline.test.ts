import { describe, expect, it } from 'vitest';
import { withMethods } from './adapter-pipeline.js';

class Framework {
  readonly #secret = 'private';
  readonly label = 'framework';
  reveal(): string {
    return this.#secret;
  }
  callTool(): string {
    return 'original';
  }
}

describe('withMethods', () => {
  it('replaces the named methods and runs the others on the real object', () => {
    const wrapped = withMethods(new Framework(), { callTool: () => 'replaced' });
    expect(wrapped.callTool()).toBe('replaced');
    // Bound to the real object, so a private field still reads.
    expect(wrapped.reveal()).toBe('private');
    expect(wrapped.label).toBe('framework');
    expect(wrapped).toBeInstanceOf(Framework);
  });

  it('adds no method the object lacks, and takes nothing from the overrides’ prototype', () => {
    const target = new Framework();
    const wrapped = withMethods(target, { callToolResult: () => 'added' }) as Framework & {
      callToolResult?: () => string;
    };
    expect(wrapped.callToolResult).toBeUndefined();
    expect(wrapped.toString()).toBe(target.toString());
    expect(wrapped.callTool()).toBe('original');
  });
});
