/**
 * The area codes the NWS API accepts for `/alerts/active?area=` (its OpenAPI `AreaCode`: a
 * `StateTerritoryCode` or a `MarineAreaCode`). NWS answers any other value with a 400, so the tools
 * check first and give an LLM the whole list to correct itself from.
 *
 * @module
 */

/**
 * The 50 states, DC and the territories and freely associated states NWS forecasts for, with
 * their names. `UM` (US Minor Outlying Islands) is not an NWS area code.
 */
export const NWS_STATE_TERRITORY_AREAS: Readonly<Record<string, string>> = Object.freeze({
  AL: 'Alabama',
  AK: 'Alaska',
  AS: 'American Samoa',
  AR: 'Arkansas',
  AZ: 'Arizona',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  GU: 'Guam',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  PR: 'Puerto Rico',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VI: 'U.S. Virgin Islands',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  MP: 'Northern Mariana Islands',
  PW: 'Palau',
  FM: 'Federated States of Micronesia',
  MH: 'Marshall Islands',
});

/** The marine areas (coastal and offshore waters, the Great Lakes), with short names. */
export const NWS_MARINE_AREAS: Readonly<Record<string, string>> = Object.freeze({
  AM: 'Western North Atlantic south of Currituck Beach Light NC, and the Caribbean',
  AN: 'Western North Atlantic from the Canadian border to Currituck Beach Light NC',
  GM: 'Gulf of America',
  LC: 'Lake St. Clair',
  LE: 'Lake Erie',
  LH: 'Lake Huron',
  LM: 'Lake Michigan',
  LO: 'Lake Ontario',
  LS: 'Lake Superior',
  PH: 'Central Pacific, Hawaiian waters',
  PK: 'North Pacific near Alaska',
  PM: 'Western Pacific, Mariana Islands waters',
  PS: 'South Central Pacific, American Samoa waters',
  PZ: 'Eastern North Pacific along the US West Coast',
  SL: 'St. Lawrence River above St. Regis',
});

/** Every code NWS accepts as `area`, states and territories first. */
export const NWS_AREA_CODES: readonly string[] = Object.freeze([
  ...Object.keys(NWS_STATE_TERRITORY_AREAS),
  ...Object.keys(NWS_MARINE_AREAS),
]);

const KNOWN = new Set(NWS_AREA_CODES);

/** True if `code` (already upper case) is an NWS area code. */
export function isNwsAreaCode(code: string): boolean {
  return KNOWN.has(code);
}

/** The name of an area code, or `undefined` for an unknown code. */
export function areaName(code: string): string | undefined {
  return NWS_STATE_TERRITORY_AREAS[code] ?? NWS_MARINE_AREAS[code];
}

/** The valid codes, grouped, as one sentence an LLM can pick from. */
export function describeAreaCodes(): string {
  return (
    `States and territories: ${Object.keys(NWS_STATE_TERRITORY_AREAS).join(', ')}. ` +
    `Marine areas: ${Object.keys(NWS_MARINE_AREAS).join(', ')}.`
  );
}

/**
 * Normalises an area code: trims it and upper-cases it (`" tx"` → `"TX"`).
 *
 * @param input - what the caller passed
 * @returns the NWS area code
 * @throws Error naming the bad value and listing every valid code
 */
export function parseAreaCode(input: string): string {
  const code = input.trim().toUpperCase();
  if (isNwsAreaCode(code)) return code;
  const shown = input.length > 40 ? `${input.slice(0, 40)}…` : input;
  throw new Error(
    `${JSON.stringify(shown)} is not an NWS area code. Use a two-letter state, territory or marine area code (case does not matter). ${describeAreaCodes()}`,
  );
}
