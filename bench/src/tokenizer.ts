import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';

/** Real BPE tokenizers that ship offline: o200k_base (GPT-4o family) and cl100k_base (GPT-4). */
export const tokenizers = {
  o200k_base: new Tiktoken(o200k),
  cl100k_base: new Tiktoken(cl100k),
} as const;

/** Tokens of `text` in each tokenizer. */
export function countTokens(text: string): { o200k_base: number; cl100k_base: number } {
  return {
    o200k_base: tokenizers.o200k_base.encode(text).length,
    cl100k_base: tokenizers.cl100k_base.encode(text).length,
  };
}

/**
 * JSON as Python's `json.dumps(value, indent=2)` writes it — how the Python reference prints
 * tool results: two-space indent, `": "` and `","` separators, and non-ASCII escaped as `\uXXXX`
 * (`ensure_ascii=True`, surrogate pairs for astral characters).
 */
export function pythonPrettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
