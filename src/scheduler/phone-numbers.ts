import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { FieldError } from '../common/http/problem';

export const MAX_PHONE_NUMBERS = 10_000;

export interface NormalizedPhoneNumbers {
  numbers: string[];
  errors: FieldError[];
}

/**
 * E.164 with libphonenumber-js's full metadata: `+` optional on input, always `+` on output,
 * duplicates (after normalisation) removed in first-seen order, each bad entry named by index.
 */
export function normalizePhoneNumbers(
  input: readonly unknown[],
  field = 'client_phone_numbers',
): NormalizedPhoneNumbers {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  input.forEach((raw, index) => {
    const at = `${field}[${index}]`;
    if (typeof raw !== 'string') {
      errors.push({ field: at, message: 'must be a string' });
      return;
    }
    const compact = raw.trim().replace(/[\s().-]/g, '');
    if (!/^\+?[1-9]\d{6,14}$/.test(compact)) {
      errors.push({
        field: at,
        message: `"${raw}" is not an E.164 phone number (e.g. +14155550123)`,
      });
      return;
    }
    const parsed = parsePhoneNumberFromString(compact.startsWith('+') ? compact : `+${compact}`);
    if (!parsed || !parsed.isValid()) {
      errors.push({ field: at, message: `"${raw}" is not a valid phone number` });
      return;
    }
    seen.add(parsed.number);
  });
  return { numbers: [...seen], errors };
}
