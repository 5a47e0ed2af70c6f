import { randomBytes } from 'node:crypto';

/**
 * Ids in Meta's formats. A WhatsApp message id is `wamid.` and the base64 of a small binary record
 * holding the recipient's number and 20 hex characters (Meta's own, decoded:
 * `1c 18 0b "16503879439" 15 02 00 12 18 14 "3AADF8441347E8571C10" 00`).
 */
export function newWamid(recipient: string): string {
  const number = Buffer.from(recipient.replace(/\D/g, '').slice(0, 20));
  return `wamid.${Buffer.concat([
    Buffer.from([0x1c, 0x18, number.length]),
    number,
    Buffer.from([0x15, 0x02, 0x00, 0x12, 0x18, 0x14]),
    Buffer.from(randomBytes(10).toString('hex').toUpperCase()),
    Buffer.from([0x00]),
  ]).toString('base64')}`;
}

/** A Messenger message id: `m_` and about 90 URL-safe characters, as the Send API answers. */
export const newMid = (): string => `m_${randomBytes(66).toString('base64url')}`;

/**
 * A media id: 15 or 16 digits, as Graph answers an upload. Drawn within the range of its length
 * (7 random bytes read as a number had fewer digits about once in 700 ids).
 */
export function newMediaId(): string {
  const digits = 15n + BigInt(randomBytes(1)[0] & 1);
  const lowest = 10n ** (digits - 1n);
  const random = BigInt(`0x${randomBytes(8).toString('hex')}`);
  return String(lowest + (random % (9n * lowest)));
}
