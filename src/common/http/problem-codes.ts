/**
 * Every `code` a problem body can carry: its HTTP status and when a client sees it. This is the
 * one list: `ProblemException` takes a code from it (the status follows), the OpenAPI document
 * enumerates it, and README's table is generated from it (`npm run docs:problem-codes`; a test
 * fails when README differs). A module that needs a new failure adds its code here.
 */
export const PROBLEM_CODES = {
  validation_failed: {
    status: 400,
    when: 'The body, query or path failed validation: a wrong type, a missing or unknown field, `null` in any field but `params`, a NUL character or unpaired surrogate, an object of more than 1,000 keys, a number out of range. `errors: [{field, message}]` lists the first 50, `errors_total` counts them.',
  },
  malformed_json: { status: 400, when: 'The body is not valid JSON.' },
  json_too_deep: { status: 400, when: 'The JSON body nests more than 64 levels.' },
  bad_request: { status: 400, when: 'The request is not valid HTTP, or its body cannot be read.' },
  unauthorized: {
    status: 401,
    when: 'The bearer token is missing, malformed, expired, wrongly signed or lacks a required claim.',
  },
  invalid_signature: {
    status: 401,
    when: "A webhook notification whose `X-Hub-Signature-256` is missing, malformed or matches neither the channel's own `app_secret` nor, for a channel without one, any `META_APP_SECRET`; nothing is stored.",
  },
  forbidden: {
    status: 403,
    when: "Meta's webhook handshake with a wrong `hub.verify_token` or `hub.mode`, a webhook for a channel that does not exist (or was removed), or an MCP request whose `Origin` is neither `PUBLIC_URL`'s nor in `MCP_ALLOWED_ORIGINS` or `CORS_ORIGINS`.",
  },
  not_found: {
    status: 404,
    when: "No such route, or no such resource in the caller's organization (another organization's id answers the same).",
  },
  request_timeout: { status: 408, when: 'The request took longer than `HTTP_REQUEST_TIMEOUT_MS`.' },
  conflict: {
    status: 409,
    when: 'A WhatsApp `number_id` or Messenger `user_id` already bound to a live channel, in any organization; pausing a completed follow-up.',
  },
  authorization_required: {
    status: 409,
    when: 'Executing a tool whose authorization is not completed (`authorization_status` says where it stands).',
  },
  oauth2_not_required: {
    status: 409,
    when: 'Authorizing a tool that needs no OAuth2 authorization.',
  },
  payload_too_large: { status: 413, when: 'The body exceeds 1 MiB.' },
  media_not_found: {
    status: 404,
    when: 'Downloading media whose id Meta does not know (or no longer keeps: a received media id lives 7 days), or whose short-lived download URL has expired.',
  },
  media_too_large: {
    status: 413,
    when: "Downloading media larger than `MEDIA_MAX_BYTES`, judged from the size Meta announces before any byte is sent; uploading a file larger than `MEDIA_MAX_BYTES` or than Meta's limit for its type (`errors` names `file` and the limit).",
  },
  unsupported_media_type: {
    status: 415,
    when: 'The body is not UTF-8 JSON; a media upload that is not multipart/form-data, or whose file is of a type WhatsApp does not take (`errors` names `file`).',
  },
  unknown_tool: { status: 422, when: 'The tool name is not (or no longer) in the catalog.' },
  channel_not_usable: {
    status: 422,
    when: "The follow-up's channel is not an active WhatsApp channel of this agent in this organization; or a channel that sends now, downloads or uploads media, marks a message read or sends a sender action is inactive (Meta refused its token: a refusal during any of these calls deactivates it too) or has a token that cannot be decrypted.",
  },
  outside_messaging_window: {
    status: 422,
    when: 'Sending now on Messenger to someone who has not written to the page in the last 24 hours.',
  },
  template_invalid: {
    status: 422,
    when: "A WhatsApp follow-up's or send-now's template, on a channel whose template catalog is known, does not exist in its language, is not `APPROVED`, or does not get exactly what its components need (body parameters by count or by name, the header's parameter of the header's format, dynamic URL and copy-code button parameters); `errors` names each fault. Without a catalog the template is sent as given.",
  },
  provider_not_configured: {
    status: 422,
    when: "The tool's OAuth2 provider has no client configured on this service.",
  },
  not_executable: {
    status: 422,
    when: 'The tool cannot run here (no executor, or its credential cannot be used).',
  },
  rate_limited: {
    status: 429,
    when: 'Too many requests for the organization, too many failed authentications from one address, or more open MCP event streams than `MCP_MAX_STREAMS_PER_ORGANIZATION`; `Retry-After` says when to retry.',
  },
  headers_too_large: { status: 431, when: 'The request headers exceed 16 KiB.' },
  internal_error: { status: 500, when: 'An unexpected error; it is logged, never a stack trace.' },
  bad_gateway: {
    status: 502,
    when: "Meta answered a media download or upload, a read receipt or a sender action with something agentline cannot use: an error it does not expect (Meta's message is in `detail`), a body that is not what its documentation describes, a redirect, or a media URL on a host that is not Meta's (not followed, and the token not sent there).",
  },
  upstream_unavailable: {
    status: 503,
    when: "Meta's Graph API (or its media host) cannot be reached, or answered 429 or 5xx; `Retry-After` when Meta gave one.",
  },
  upstream_timeout: {
    status: 504,
    when: "Meta's Graph API (or its media host) did not answer within `GRAPH_API_TIMEOUT_MS`.",
  },
  database_unavailable: {
    status: 503,
    when: 'The database cannot be reached; `Retry-After` says when to retry.',
  },
  idempotency_key_reused: {
    status: 422,
    when: 'The `Idempotency-Key` was first used with another request (another body or path) within the last 24 hours.',
  },
  idempotency_key_in_use: {
    status: 409,
    when: 'A request with the same `Idempotency-Key` is still being handled; retry once it has answered.',
  },
  not_ready: {
    status: 503,
    when: '`GET /health/ready` only: a readiness check failed; `detail` names which, `Retry-After` says when to look again.',
  },
  busy: {
    status: 503,
    when: "A worker thread cannot take the work now: the scheduler's (schedules and phone numbers) has a full queue, or the organization already holds its share of it; or the worker threads that run the scheduler's work or a CPU-bound tool cannot start (they are being started again). `Retry-After` says when to retry.",
  },
  outbox_unavailable: {
    status: 503,
    when: "Sending now, or listing a channel's deliveries, on a service built without the scheduler, whose outbox sends every message. The service as shipped always has it.",
  },
} as const satisfies Record<string, { status: number; when: string }>;

export type ProblemCode = keyof typeof PROBLEM_CODES;

export const PROBLEM_CODE_NAMES = Object.keys(PROBLEM_CODES) as ProblemCode[];

export const statusOf = (code: ProblemCode): number => PROBLEM_CODES[code].status;

/** README's table of codes, generated from the registry (the test compares README with it). */
export function problemCodesMarkdown(): string {
  const rows = PROBLEM_CODE_NAMES.map(
    (code) => `| \`${code}\` | ${PROBLEM_CODES[code].status} | ${PROBLEM_CODES[code].when} |`,
  );
  return ['| `code` | Status | When |', '|---|---|---|', ...rows].join('\n');
}

const SECTION = /(<!-- problem-codes:start -->)[\s\S]*?(<!-- problem-codes:end -->)/;

/** README with its generated section replaced by the registry's table; throws without markers. */
export function replaceProblemCodesSection(readme: string): string {
  if (!SECTION.test(readme)) throw new Error('README has no problem-codes markers');
  return readme.replace(
    SECTION,
    (_, start: string, end: string) => `${start}\n${problemCodesMarkdown()}\n${end}`,
  );
}
