import { callbackResponse } from './oauth2-callback.page';

const toolId = '0199a000-0000-7000-8000-000000000001';

describe('callbackResponse', () => {
  it('answers a page that says what happened, escaped', () => {
    const failed = callbackResponse(
      { status: 'failed', error: 'authorization_refused', message: `<b>"no"</b> & 'never'` },
      {},
    );
    expect(failed).toMatchObject({ kind: 'page', status: 400 });
    const html = failed.kind === 'page' ? failed.html : '';
    expect(html).toContain('&lt;b&gt;&quot;no&quot;&lt;/b&gt; &amp; &#39;never&#39;');
    expect(html).not.toContain('<b>');
    expect(callbackResponse({ status: 'completed', toolId, providerId: 'google' }, {})).toEqual({
      kind: 'page',
      status: 200,
      html: expect.stringContaining('Authorization complete'),
    });
    expect(
      callbackResponse({ status: 'failed', error: 'token_exchange_failed', message: 'x' }, {}),
    ).toMatchObject({ status: 502 });
  });

  it('redirects to the configured URLs, keeping their own query', () => {
    const urls = {
      successUrl: 'https://app.example.com/ok?tab=tools',
      failureUrl: 'https://app.example.com/ko',
    };
    expect(callbackResponse({ status: 'completed', toolId, providerId: 'google' }, urls)).toEqual({
      kind: 'redirect',
      location: `https://app.example.com/ok?tab=tools&tool_id=${toolId}&status=completed`,
    });
    expect(
      callbackResponse({ status: 'failed', error: 'expired_state', message: 'late', toolId }, urls),
    ).toEqual({
      kind: 'redirect',
      location: `https://app.example.com/ko?tool_id=${toolId}&status=failed&error=expired_state`,
    });
  });
});
