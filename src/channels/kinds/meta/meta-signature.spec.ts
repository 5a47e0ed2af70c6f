import { createHmac } from 'node:crypto';
import { isSignedByMeta } from './meta-signature';

const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
const sign = (secret: string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('isSignedByMeta', () => {
  it('accepts the HMAC-SHA256 of the raw body with any configured secret, in any hex case', () => {
    expect(isSignedByMeta(body, sign('current-secret'), ['old-secret', 'current-secret'])).toBe(
      true,
    );
    expect(
      isSignedByMeta(body, sign('current-secret').toUpperCase().replace('SHA256', 'sha256'), [
        'current-secret',
      ]),
    ).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['another algorithm', `sha1=${'a'.repeat(40)}`],
    ['a short digest', sign('current-secret').slice(0, 20)],
    ['another secret', sign('someone-else')],
    ['garbage', 'sha256=zz'],
  ])('refuses %s', (_name, header) => {
    expect(isSignedByMeta(body, header, ['current-secret'])).toBe(false);
  });

  it('refuses everything when no secret is configured', () => {
    expect(isSignedByMeta(body, sign('current-secret'), [])).toBe(false);
  });
});
