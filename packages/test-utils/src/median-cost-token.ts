/**
 * A fixed stand-in for a minted `resource_url` token, for counting a result's tokens the same way
 * on every run.
 *
 * A token is 43 random base64url characters (PROTOCOL §6), and o200k_base splits random text
 * unevenly: inside a `resource_url` one costs 21–36 tokens (20,000 draws; 24–33 from the 1st to the
 * 99th percentile), so a count that keeps the minted token moves by up to ±7 from run to run.
 * This one costs the median, 29 o200k tokens in place (30 after `https://weather.example/s2sp/data/`),
 * and is not a live capability: it is the base64url SHA-256 of `s2sp median token 10`.
 */
export const MEDIAN_COST_TOKEN = '3Msfacg5NYRGCkVJ0l0AiMyZkhGu12pNykq2BWQQvRQ';

/**
 * `text` with every data-plane token (`/s2sp/data/<43 base64url characters>`) replaced by
 * {@link MEDIAN_COST_TOKEN}, so its token count no longer depends on the draw.
 *
 * @example withMedianCostToken(resultText) // same text, the resource_url's token fixed
 */
export function withMedianCostToken(text: string): string {
  return text.replace(
    /\/s2sp\/data\/[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    `/s2sp/data/${MEDIAN_COST_TOKEN}`,
  );
}
