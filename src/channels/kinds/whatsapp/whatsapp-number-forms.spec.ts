import { isBusinessScopedUserId, otherNumberForms } from './whatsapp-number-forms';

describe('otherNumberForms', () => {
  it.each([
    // Brazil: a mobile with and without its ninth digit, both ways.
    ['+5541988887924', '+554188887924'],
    ['+554188887924', '+5541988887924'],
    ['+5511987654321', '+551187654321'],
    ['+551199999999', '+5511999999999'],
    ['+5521966554433', '+552166554433'],
    // Mexico: 521 and ten digits is the ten digits.
    ['+5215512345678', '+525512345678'],
    ['+525512345678', '+5215512345678'],
    ['+528112345678', '+5218112345678'],
    // Argentina: 549 and ten digits is the ten digits.
    ['+5491123456789', '+541123456789'],
    ['+541123456789', '+5491123456789'],
    ['+5493515551234', '+543515551234'],
  ])('%s is also %s', (phone, other) => {
    expect(otherNumberForms(phone)).toEqual([other]);
    expect(otherNumberForms(other)).toEqual([phone]);
  });

  it.each([
    // Brazilian landlines (eight digits beginning with 2 to 5) are one number.
    ['+551133334444', 'a São Paulo landline'],
    ['+554132221111', 'a Curitiba landline'],
    ['+555133445566', 'a Porto Alegre landline'],
    // A nine-digit mobile whose eight digits begin with 1 to 5 never had a short form.
    ['+5541912345678', 'a new mobile that never had eight digits'],
    ['+5541953334444', 'a 9 before a landline-like number'],
    // Area codes that do not exist (no DDD begins with 0 or ends with 0; 20, 23, 25, 26, 29...).
    ['+552088887924', 'area code 20'],
    ['+5520988887924', 'area code 20, nine digits'],
    ['+551088887924', 'area code 10'],
    // Lengths that are neither form.
    ['+55419888879245', 'too long for Brazil'],
    ['+5541888879', 'too short for Brazil'],
    ['+52155123456', 'too short for Mexico'],
    ['+52155123456789', 'too long for Mexico'],
    ['+521123456789', 'a Mexican number beginning with 1 after 52'],
    ['+5412345678', 'too short for Argentina'],
    ['+54911234567890', 'too long for Argentina'],
    ['+549923456789', 'an Argentine area code beginning with 9'],
    // Other countries have no rule here.
    ['+16505551234', 'the United States'],
    ['+34612345678', 'Spain'],
    ['+447911123456', 'the United Kingdom'],
    ['+5511', 'a prefix'],
    // Not E.164 with its plus: not a number this looks at.
    ['5541988887924', 'digits without +'],
    ['US.13491208655302741918', 'a BSUID'],
    ['', 'nothing'],
  ])('%s has no other form (%s)', (phone) => {
    expect(otherNumberForms(phone)).toEqual([]);
  });
});

describe('isBusinessScopedUserId', () => {
  it.each([
    'US.13491208655302741918',
    'BR.a1B2c3',
    'US.ENT.11815799212886844830',
    `IN.${'9'.repeat(128)}`,
  ])('%s is a BSUID', (value) => expect(isBusinessScopedUserId(value)).toBe(true));
  it.each([
    '',
    '+16505551234',
    '16505551234',
    'us.1349',
    'USA.1349',
    'US.',
    'US.13-49',
    'US.1349\u0000',
    `IN.${'9'.repeat(129)}`,
    'US. 1349',
  ])('%j is not', (value) => expect(isBusinessScopedUserId(value)).toBe(false));
});
