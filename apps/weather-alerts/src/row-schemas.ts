/**
 * The columns of the tools' rows, declared so that the tool descriptions list them and an LLM can
 * choose `abstract_domains` before its first call. Rows are not validated against these: NWS adds
 * fields now and then (`note` appeared in 2026), and that must not break the tools.
 *
 * @module
 */
import { z } from 'zod';

/** A row of `get_alerts` and `get_alerts_for_point`: an alert's properties, in NWS's order. */
export const alertRowSchema: z.ZodObject = z.object({
  id: z.string().describe('urn:oid alert id'),
  areaDesc: z.string().describe('affected places, ";"-separated'),
  geocode: z.unknown().describe('{SAME, UGC} zone codes'),
  affectedZones: z.unknown(),
  references: z.unknown(),
  sent: z.string(),
  effective: z.string(),
  onset: z.string().nullable(),
  expires: z.string().describe('when this message expires, ISO 8601'),
  ends: z.string().nullable().describe('when the hazard ends'),
  status: z.string().describe('Actual, Exercise, Test…'),
  messageType: z.string().describe('Alert, Update, Cancel'),
  category: z.string(),
  severity: z.string().describe('Extreme, Severe, Moderate, Minor, Unknown'),
  certainty: z.string().describe('Observed, Likely, Possible…'),
  urgency: z.string().describe('Immediate, Expected, Future…'),
  event: z.string().describe('alert type, e.g. Heat Advisory'),
  sender: z.string(),
  senderName: z.string().describe('issuing NWS office'),
  headline: z.string().nullable().describe('one-line summary'),
  description: z.string().describe('full text, long'),
  instruction: z.string().nullable().describe('what to do, long'),
  response: z.string(),
  note: z.string().optional(),
  parameters: z.unknown(),
  scope: z.string().optional(),
  code: z.string().optional(),
  language: z.string().optional(),
  web: z.string().optional(),
  eventCode: z.unknown().optional(),
});

/** A row of `get_forecast`: one forecast period, as NWS sends it. */
export const forecastPeriodSchema: z.ZodObject = z.object({
  number: z.number().describe('period number, from 1'),
  name: z.string().describe('e.g. "Tonight", "Saturday"'),
  startTime: z.string(),
  endTime: z.string(),
  isDaytime: z.boolean(),
  temperature: z.number().describe('in temperatureUnit'),
  temperatureUnit: z.string().describe('F or C'),
  temperatureTrend: z.string().nullable(),
  probabilityOfPrecipitation: z.unknown().describe('{unitCode, value}, percent'),
  windSpeed: z.string().describe('e.g. "10 to 15 mph"'),
  windDirection: z.string(),
  icon: z.string(),
  shortForecast: z.string().describe('e.g. "Mostly Sunny"'),
  detailedForecast: z.string().describe('a sentence or two, long'),
});
