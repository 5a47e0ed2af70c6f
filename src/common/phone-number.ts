import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

export type PhoneNumberProblem = 'not_e164' | 'invalid';

/**
 * E.164 with libphonenumber-js's full metadata: `+` optional on input (spaces, dots, dashes and
 * brackets ignored), always `+` on output; or why not.
 */
export function toE164(raw: string): { number: string } | { problem: PhoneNumberProblem } {
  const compact = raw.trim().replace(/[\s().-]/g, '');
  if (!/^\+?[1-9]\d{6,14}$/.test(compact)) return { problem: 'not_e164' };
  const parsed = parsePhoneNumberFromString(compact.startsWith('+') ? compact : `+${compact}`);
  if (!parsed || !parsed.isValid()) return { problem: 'invalid' };
  return { number: parsed.number };
}

/** The words a client reads for each problem. */
export function describePhoneProblem(raw: string, problem: PhoneNumberProblem): string {
  return problem === 'not_e164'
    ? `"${raw}" is not an E.164 phone number (e.g. +14155550123)`
    : `"${raw}" is not a valid phone number`;
}
