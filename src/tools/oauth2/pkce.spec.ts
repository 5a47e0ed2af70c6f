import { codeChallenge, newCodeVerifier } from './pkce';

describe('PKCE', () => {
  it('derives the S256 challenge of RFC 7636, appendix B', () => {
    expect(codeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes verifiers of 43 unreserved characters, different every time', () => {
    const verifiers = new Set(Array.from({ length: 50 }, () => newCodeVerifier()));
    expect(verifiers.size).toBe(50);
    for (const verifier of verifiers) expect(verifier).toMatch(/^[A-Za-z0-9\-._~]{43}$/);
  });

  it('gives a challenge that is unpadded base64url', () => {
    expect(codeChallenge(newCodeVerifier())).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
