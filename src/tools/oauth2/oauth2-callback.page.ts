import { OAuth2Config } from './oauth2.config';
import { CallbackOutcome } from './oauth2-authorization.service';

/** What the callback answers the user's browser: a redirect, or a small page. */
export type CallbackResponse =
  { kind: 'redirect'; location: string } | { kind: 'page'; status: number; html: string };

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!,
  );

/** Failures a user caused or can retry are 400; a provider that failed the exchange is 502. */
const FAILURE_STATUS: Record<string, number> = { token_exchange_failed: 502 };

/**
 * The redirect to OAUTH_SUCCESS_URL / OAUTH_FAILURE_URL (with `tool_id`, `status` and, on failure,
 * `error`) when configured, else a page that says what happened. Neither carries a code, a token
 * or the state.
 */
export function callbackResponse(
  outcome: CallbackOutcome,
  config: Pick<OAuth2Config, 'successUrl' | 'failureUrl'>,
): CallbackResponse {
  const target = outcome.status === 'completed' ? config.successUrl : config.failureUrl;
  if (target) {
    const url = new URL(target);
    if (outcome.toolId) url.searchParams.set('tool_id', outcome.toolId);
    url.searchParams.set('status', outcome.status);
    if (outcome.status === 'failed') url.searchParams.set('error', outcome.error);
    return { kind: 'redirect', location: url.toString() };
  }
  const [title, message] =
    outcome.status === 'completed'
      ? [
          'Authorization complete',
          `The agent can now use its ${outcome.providerId} tools. You can close this window.`,
        ]
      : ['Authorization failed', outcome.message];
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#222}</style></head>
<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body>
</html>
`;
  return {
    kind: 'page',
    status: outcome.status === 'completed' ? 200 : (FAILURE_STATUS[outcome.error] ?? 400),
    html,
  };
}
