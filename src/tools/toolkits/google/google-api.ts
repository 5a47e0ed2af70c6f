import { ToolExecutionContext } from '../../execution/tool-executor';
import { requireAccessToken } from '../provider-credentials';
import {
  field,
  ProviderHttpClient,
  providerError,
  ProviderRequest,
  stringOrNull,
} from '../provider-http.client';

export const GOOGLE = 'Google';

export type GoogleCall = (
  request: Pick<ProviderRequest, 'method' | 'path' | 'query' | 'json'>,
  context: ToolExecutionContext,
) => Promise<unknown>;

/** One call to a Google API (Gmail, Calendar share www.googleapis.com), bearer-authorized. */
export function googleCaller(http: ProviderHttpClient, baseUrl: string): GoogleCall {
  return async (request, context) => {
    const token = requireAccessToken(context, GOOGLE);
    const response = await http.request(GOOGLE, {
      ...request,
      baseUrl,
      headers: { authorization: `Bearer ${token}` },
      signal: context.signal,
      secrets: [token],
    });
    if (response.status >= 200 && response.status < 300) return response.body;
    // Google errors are `{error: {code, message, status}}` (OAuth endpoints: `{error, error_description}`).
    const message =
      stringOrNull(field(response.body, 'error', 'message')) ??
      stringOrNull(field(response.body, 'error_description')) ??
      undefined;
    throw providerError(GOOGLE, response.status, message, [token]);
  };
}
