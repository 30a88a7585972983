import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';

const encoding = new Tiktoken(o200k);

/** Tokens of `text` with o200k_base, the tokenizer of the GPT-4o family (a real BPE tokenizer). */
export function countTokens(text: string): number {
  return encoding.encode(text).length;
}
