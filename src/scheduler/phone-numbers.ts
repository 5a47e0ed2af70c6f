import { FieldError } from '../common/http/problem';
import { describePhoneProblem, toE164 } from '../common/phone-number';

export const MAX_PHONE_NUMBERS = 10_000;

export interface NormalizedPhoneNumbers {
  numbers: string[];
  errors: FieldError[];
}

/**
 * Every entry in E.164 (common/phone-number), duplicates (after normalisation) removed in
 * first-seen order, each bad entry named by index.
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
    const result = toE164(raw);
    if ('problem' in result) {
      errors.push({ field: at, message: describePhoneProblem(raw, result.problem) });
      return;
    }
    seen.add(result.number);
  });
  return { numbers: [...seen], errors };
}
