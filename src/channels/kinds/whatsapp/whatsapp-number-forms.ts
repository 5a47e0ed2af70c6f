/**
 * The forms in which one WhatsApp user's phone number appears, by the national rules Meta's `wa_id`
 * follows (a `wa_id` can differ from the number a business dialled: Meta's send answer then shows
 * `contacts[].input` and a different `wa_id`). Only mobile numbers have a second form, and only
 * where the rule is known:
 *
 * - Brazil (+55): mobiles gained a ninth digit (a leading 9) between 2012 and 2016. Accounts made
 *   before keep a `wa_id` without it: +55 41 9 8888 7924 is also 55 41 8888 7924. The area code
 *   (DDD) is two digits from ANATEL's list (libphonenumber's `(?:[14689][1-9]|2[12478]|3[1-578]|
 *   5[13-5]|7[13-579])`); an eight-digit mobile began with 6 to 9, a landline begins with 2 to 5, so
 *   a 9 followed by 6 to 9 is removed, a 6 to 9 gains a 9, and a landline (or a new mobile whose
 *   eight digits begin with 1 to 5, which never had a short form) is left alone.
 * - Mexico (+52): mobiles were dialled from abroad as +52 1 and ten digits until 2019; WhatsApp
 *   kept `521` in many `wa_id`s. Ten digits (area codes begin with 2 to 9) are also 521 and those
 *   ten digits. Mexico's numbering plan no longer tells a mobile from a landline (libphonenumber
 *   gives them one pattern), and a landline has no `521` form that anyone can write from.
 * - Argentina (+54): a mobile is +54 9 and ten digits (area code and local number, the area code
 *   beginning with 1, 2 or 3); written without the 9 it is the same ten digits. As in Mexico the
 *   number blocks are either fixed or mobile, never both, so a landline's `549` form names nobody.
 */

/** ANATEL's two-digit area codes (DDD), as libphonenumber's Brazilian metadata lists them. */
const BRAZIL_AREA = '(?:[14689][1-9]|2[12478]|3[1-578]|5[13-5]|7[13-579])';
const BRAZIL_NINE = new RegExp(`^\\+55(${BRAZIL_AREA})9([6-9]\\d{7})$`);
const BRAZIL_EIGHT = new RegExp(`^\\+55(${BRAZIL_AREA})([6-9]\\d{7})$`);
const MEXICO_WITH_ONE = /^\+521([2-9]\d{9})$/;
const MEXICO_TEN = /^\+52([2-9]\d{9})$/;
const ARGENTINA_WITH_NINE = /^\+549([1-3]\d{9})$/;
const ARGENTINA_TEN = /^\+54([1-3]\d{9})$/;

/**
 * The other forms of an E.164 number (with its `+`) under the known national rules; empty for any
 * other number, a landline, or anything that is not E.164.
 */
export function otherNumberForms(phone: string): string[] {
  let match: RegExpExecArray | null;
  if ((match = BRAZIL_NINE.exec(phone))) return [`+55${match[1]}${match[2]}`];
  if ((match = BRAZIL_EIGHT.exec(phone))) return [`+55${match[1]}9${match[2]}`];
  if ((match = MEXICO_WITH_ONE.exec(phone))) return [`+52${match[1]}`];
  if ((match = MEXICO_TEN.exec(phone))) return [`+521${match[1]}`];
  if ((match = ARGENTINA_WITH_NINE.exec(phone))) return [`+54${match[1]}`];
  if ((match = ARGENTINA_TEN.exec(phone))) return [`+549${match[1]}`];
  return [];
}

/**
 * A WhatsApp business-scoped user id (BSUID): the user's ISO 3166 alpha-2 country code, a period,
 * and up to 128 letters and digits (`US.13491208655302741918`); a parent BSUID has `ENT.` after
 * the country (`US.ENT.11815799212886844830`).
 */
export const BSUID = /^[A-Z]{2}\.(?:ENT\.)?[A-Za-z0-9]{1,128}$/;
/** The longest BSUID: a parent's `XX.ENT.` and 128 characters. */
export const BSUID_MAX_LENGTH = 135;

export const isBusinessScopedUserId = (value: string): boolean => BSUID.test(value);
