import type { Agent } from 'undici';
import { describeOutboundError, isRecord, keepAliveAgent } from '../../common/outbound-http';

/** What a follow-up occurrence knows when its message is written. */
export interface ComposeInput {
  followUpId: string;
  prompt: string;
  title: string;
  description: string | null;
  /** E.164; filled into templates, never sent to an LLM. */
  phone: string;
  /** Epoch milliseconds of the occurrence being delivered. */
  occurrenceAt: number;
  /** The longest text the channel's kind accepts (its transport's limits). */
  textLength: number;
}

export interface LlmComposerOptions {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  /** Sockets to the endpoint; at least the delivery concurrency, so requests never queue for one. */
  connections?: number;
}

/** Occurrences whose generated text is kept for the other numbers of the same send. */
const GENERATED_CACHE_SIZE = 1_000;

/** The message could not be written this time; the delivery is retried. */
export class ComposeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ComposeError';
  }
}

/** Writes the WhatsApp text of one follow-up occurrence. */
export abstract class MessageComposer {
  abstract compose(input: ComposeInput): Promise<string>;

  /** Releases sockets, if any; idempotent. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const PLACEHOLDER = /\{\{\s*(title|phone|description)\s*\}\}/g;

/**
 * Fills {{title}}, {{phone}} and {{description}}; unknown placeholders stay as written,
 * and so does {{phone}} when no phone is given.
 */
export function fillTemplate(
  template: string,
  values: { title: string; description: string | null; phone?: string },
): string {
  return template.replace(PLACEHOLDER, (match: string, name: 'title' | 'phone' | 'description') => {
    if (name === 'phone') {
      return values.phone ?? match;
    }
    return name === 'title' ? values.title : (values.description ?? '');
  });
}

/** Trims and caps at the channel's limit without splitting a surrogate pair. */
export function finishMessage(text: string, limit: number): string {
  let result = text.trim();
  if (result.length > limit) {
    const cut = /[\uD800-\uDBFF]/.test(result[limit - 1]) ? limit - 1 : limit;
    result = result.slice(0, cut).trimEnd();
  }
  return result;
}

/** The prompt itself is the message, with its placeholders filled in. */
export class TemplateMessageComposer extends MessageComposer {
  compose(input: ComposeInput): Promise<string> {
    return Promise.resolve(finishMessage(fillTemplate(input.prompt, input), input.textLength));
  }
}

const SYSTEM_PROMPT = [
  'You write exactly one WhatsApp message that a business sends to one of its clients.',
  'Follow the instruction you are given, using the follow-up title and details as context.',
  'Reply with the message text only: plain text, no markdown, no preamble, no quotes, no explanations, no alternatives.',
  'Write in the language the instruction is written in.',
  'Do not invent facts such as dates, prices, names or links that the instruction and context do not give.',
  'Keep placeholders like {{phone}} exactly as written.',
].join(' ');

const MAX_ERROR_DETAIL = 300;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Asks an OpenAI-compatible chat-completions endpoint to write the message from the prompt. */
export class LlmMessageComposer extends MessageComposer {
  private readonly agent: Agent;
  private readonly origin: string;
  private readonly path: string;
  private closing?: Promise<void>;

  constructor(private readonly options: LlmComposerOptions) {
    super();
    const base = new URL(options.url.replace(/\/+$/, ''));
    this.origin = base.origin;
    this.path = `${base.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.agent = keepAliveAgent({
      connections: options.connections ?? 16,
      timeoutMs: options.timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
  }

  /**
   * The model never sees the phone number, so every number of one occurrence would get the same
   * request: it is made once per (follow-up, occurrence) and its text reused, `{{phone}}` filled
   * in per number. A failure is not kept, so a retry asks again.
   */
  private readonly generated = new Map<string, Promise<string>>();

  async compose(input: ComposeInput): Promise<string> {
    const key = `${input.followUpId}:${input.occurrenceAt}`;
    let content = this.generated.get(key);
    if (!content) {
      content = this.generate(input);
      this.generated.set(key, content);
      content.catch(() => this.generated.delete(key));
      if (this.generated.size > GENERATED_CACHE_SIZE) {
        this.generated.delete(this.generated.keys().next().value as string);
      }
    }
    // The model may echo a placeholder; filling it here keeps the phone out of the request.
    const message = finishMessage(fillTemplate(await content, input), input.textLength);
    if (!message) {
      throw new ComposeError('llm_empty_response', 'The LLM answered with an empty message');
    }
    return message;
  }

  private async generate(input: ComposeInput): Promise<string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
    };
    if (this.options.apiKey) {
      headers.authorization = `Bearer ${this.options.apiKey}`;
    }
    // The client's phone number stays here: only the instruction and its context leave.
    const instruction = fillTemplate(input.prompt, {
      title: input.title,
      description: input.description,
    });
    const context = [`Instruction: ${instruction}`, `Follow-up title: ${input.title}`];
    if (input.description) {
      context.push(`Details: ${input.description}`);
    }

    let status: number;
    let text: string;
    try {
      const response = await this.agent.request({
        origin: this.origin,
        path: this.path,
        method: 'POST',
        headers,
        body: JSON.stringify({
          model: this.options.model,
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: context.join('\n') },
          ],
          temperature: 0.7,
          max_tokens: 500,
        }),
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      throw this.failure(error);
    }

    if (status < 200 || status >= 300) {
      const detail = errorDetail(text);
      throw new ComposeError(
        `llm_http_${status}`,
        this.redact(`The LLM answered HTTP ${status}${detail ? `: ${detail}` : ''}`),
      );
    }
    const content = readContent(text);
    if (content === undefined) {
      throw new ComposeError('llm_bad_response', 'The LLM answered with an unreadable completion');
    }
    return content;
  }

  override close(): Promise<void> {
    this.closing ??= this.agent.close();
    return this.closing;
  }

  /** Nest calls this last on shutdown, after deliveries have drained. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  private failure(error: unknown): ComposeError {
    const { code, message, timedOut } = describeOutboundError(error);
    if (timedOut) {
      return new ComposeError(
        'llm_timeout',
        `The LLM did not answer within ${this.options.timeoutMs} ms`,
      );
    }
    const detail = `${code ? `${code}: ` : ''}${message}`.slice(0, MAX_ERROR_DETAIL);
    return new ComposeError('llm_network_error', this.redact(`The LLM request failed: ${detail}`));
  }

  private redact(text: string): string {
    const key = this.options.apiKey;
    return key ? text.split(key).join('[redacted]') : text;
  }
}

/** The LLM composer when AGENT_LLM_URL is configured, templates otherwise. */
export function createMessageComposer(llm?: LlmComposerOptions): MessageComposer {
  return llm ? new LlmMessageComposer(llm) : new TemplateMessageComposer();
}

/** `choices[0].message.content`, as a string or as text parts; undefined when not a completion. */
function readContent(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.choices)) {
    return undefined;
  }
  const first: unknown = parsed.choices[0];
  if (first === undefined) {
    return '';
  }
  const message = isRecord(first) ? first.message : undefined;
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content === 'string') {
    return content;
  }
  if (content === null) {
    return '';
  }
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  return undefined;
}

/** OpenAI's `{error: {message}}`, truncated; empty when the body is something else. */
function errorDetail(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    const error = isRecord(parsed) ? parsed.error : undefined;
    const message = isRecord(error) ? error.message : undefined;
    return typeof message === 'string' ? message.slice(0, MAX_ERROR_DETAIL) : '';
  } catch {
    return '';
  }
}
