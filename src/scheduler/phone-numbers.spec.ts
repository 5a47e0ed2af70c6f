import { normalizePhoneNumbers } from './phone-numbers';

describe('normalizePhoneNumbers', () => {
  it('normalises to E.164 with a plus sign', () => {
    expect(
      normalizePhoneNumbers(['+34 612 345 678', '4915112345678', '+1 (415) 555-2671']),
    ).toEqual({
      numbers: ['+34612345678', '+4915112345678', '+14155552671'],
      errors: [],
    });
  });

  it('removes duplicates after normalisation, keeping the first-seen order', () => {
    const { numbers } = normalizePhoneNumbers(['+34612345678', '34612345678', '+34 612-345-678']);
    expect(numbers).toEqual(['+34612345678']);
  });

  it('names each bad index', () => {
    const { numbers, errors } = normalizePhoneNumbers([
      '+34612345678',
      'not-a-number',
      '+999123456789',
      12345,
      '+3461234',
      '',
    ]);
    expect(numbers).toEqual(['+34612345678']);
    expect(errors.map((error) => error.field)).toEqual([
      'client_phone_numbers[1]',
      'client_phone_numbers[2]',
      'client_phone_numbers[3]',
      'client_phone_numbers[4]',
      'client_phone_numbers[5]',
    ]);
    expect(errors[2].message).toBe('must be a string');
  });

  it('rejects numbers with letters or a leading zero country code', () => {
    expect(normalizePhoneNumbers(['+0034612345678']).errors).toHaveLength(1);
    expect(normalizePhoneNumbers(['+34abc612345']).errors).toHaveLength(1);
  });
});
