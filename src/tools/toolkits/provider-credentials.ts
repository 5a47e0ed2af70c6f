import { ToolExecutionContext, ToolExecutionError } from '../execution/tool-executor';

/** The execution service injects these; a missing one means a catalog and executor mismatch. */
export function requireApiKey(context: ToolExecutionContext, provider: string): string {
  if (!context.apiKey) throw new ToolExecutionError(`No ${provider} API key is configured.`);
  return context.apiKey;
}

export function requireAccessToken(context: ToolExecutionContext, provider: string): string {
  if (!context.accessToken) {
    throw new ToolExecutionError(`No ${provider} access token is available; authorize again.`);
  }
  return context.accessToken;
}
