import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../../../common/auth/principal';
import type { ProblemExample } from '../../../common/http/openapi.decorators';
import { notFound, ProblemException } from '../../../common/http/problem';
import {
  ChannelCredentials,
  ChannelMessageSender,
  describeUnusable,
} from '../../channel-message-sender';
import type { ChannelKind } from '../../channel-transport';
import { GraphApiClient, GraphCallFailure } from './graph-api.client';

/** The kind a Graph call needs: its id and its name in sentences. */
export interface GraphCallKind {
  kind: ChannelKind;
  label: string;
}

/**
 * The organization's channel of this kind, usable, with its token: 404 for a channel that is not
 * there (another organization's, or of another kind), 422 `channel_not_usable` for one that is
 * inactive or whose token cannot be decrypted, as sending now answers.
 */
export async function openForGraphCall(
  channels: ChannelMessageSender,
  principal: Principal,
  channelId: string,
  { kind, label }: GraphCallKind,
): Promise<ChannelCredentials> {
  const opened = await channels.credentials(
    { organizationId: principal.organizationId, channelId },
    { kind },
  );
  if (!('reason' in opened)) return opened;
  if (opened.reason === 'not_found' || opened.reason === 'wrong_kind') {
    throw notFound(`${label} channel`);
  }
  throw new ProblemException(
    'channel_not_usable',
    describeUnusable(opened, { channelId, agentId: '', label, wrongKind: '' }),
  );
}

/**
 * The problem a failed Graph call answers. A refused token deactivates the channel first (as a
 * refused send does) and answers 422 `channel_not_usable`; Meta busy or down 503 (with its
 * Retry-After), no answer in time 504, anything else 502. `cannot` finishes "Meta cannot …
 * now"; `log` names the call in the log line.
 */
export async function graphCallProblem(
  failure: Exclude<GraphCallFailure, { failure: 'aborted' }>,
  {
    credentials,
    cannot,
    logger,
    log,
  }: {
    credentials: ChannelCredentials;
    cannot: string;
    logger: Logger;
    log: { message: string; fields: Record<string, unknown> };
  },
): Promise<ProblemException> {
  switch (failure.failure) {
    case 'token_rejected':
      await credentials.tokenRejected({ code: failure.code, message: failure.message });
      return new ProblemException(
        'channel_not_usable',
        `Meta refused the access token of channel ${credentials.channel.id} (${failure.message}); the channel is now inactive: update its access_token to reactivate it.`,
      );
    case 'bad_gateway':
      logger.warn({ ...log.fields, reason: failure.message }, `${log.message} refused`);
      return new ProblemException(
        'bad_gateway',
        `Meta's answer cannot be used: ${failure.message}.`,
      );
    case 'unavailable': {
      logger.warn({ ...log.fields, reason: failure.message }, `${log.message}: Meta unavailable`);
      const headers: Record<string, string> =
        failure.retryAfterMs === undefined
          ? {}
          : { 'Retry-After': String(Math.ceil(failure.retryAfterMs / 1000)) };
      return new ProblemException(
        'upstream_unavailable',
        `Meta cannot ${cannot} now: ${failure.message}. Retry later.`,
        { headers },
      );
    }
    case 'timeout':
      logger.warn({ ...log.fields, reason: failure.message }, `${log.message}: Meta timed out`);
      return new ProblemException('upstream_timeout', `${failure.message}.`);
  }
}

/** A call to `POST /{sender}/messages` that is not a message, and when Graph accepted it. */
export interface GraphAction {
  payload: object;
  /** Graph answered 2xx with this body: whether it is the answer Meta documents. */
  accepted: (answer: unknown) => boolean;
  /** Finishes "Meta cannot … now". */
  cannot: string;
  log: { message: string; fields: Record<string, unknown> };
  signal: AbortSignal;
}

/**
 * Read receipts, typing indicators and sender actions: calls a client waits for, made at once
 * (never through the outbox, which keeps messages), with the channel's token; a failure answers
 * the problem `graphCallProblem` says.
 */
@Injectable()
export class GraphActions {
  private readonly logger = new Logger(GraphActions.name);

  constructor(
    private readonly channels: ChannelMessageSender,
    private readonly graph: GraphApiClient,
  ) {}

  open(principal: Principal, channelId: string, kind: GraphCallKind): Promise<ChannelCredentials> {
    return openForGraphCall(this.channels, principal, channelId, kind);
  }

  /** Resolves once Meta accepted it; throws the problem otherwise (nothing to answer if aborted). */
  async post(credentials: ChannelCredentials, action: GraphAction): Promise<void> {
    const result = await this.graph.postAction(
      {
        senderId: credentials.channel.senderId,
        accessToken: credentials.accessToken,
        payload: action.payload,
      },
      action.signal,
    );
    const failure: GraphCallFailure | undefined =
      'answer' in result
        ? action.accepted(result.answer)
          ? undefined
          : {
              failure: 'bad_gateway',
              message: 'Graph API answered without the answer Meta documents',
            }
        : result;
    if (!failure) {
      this.logger.log(action.log.fields, `${action.log.message}: accepted by Meta`);
      return;
    }
    if (failure.failure === 'aborted') {
      throw new ProblemException('bad_request', 'The client went away before Meta answered.');
    }
    throw await graphCallProblem(failure, {
      credentials,
      cannot: action.cannot,
      logger: this.logger,
      log: action.log,
    });
  }
}

/** The problems of a Graph action beside 404 (OpenAPI examples); `cannot` as GraphAction's. */
export const GRAPH_ACTION_PROBLEMS = (cannot: string): ProblemExample[] => [
  {
    code: 'channel_not_usable',
    detail:
      'Channel 0196f1c2-7a3b-7c4d-8e5f-6a7b8c9d0e1f is inactive; update its access_token to reactivate it.',
  },
  {
    code: 'bad_gateway',
    detail: "Meta's answer cannot be used: (#100) Invalid parameter.",
  },
  {
    code: 'upstream_unavailable',
    detail: `Meta cannot ${cannot} now: Graph API answered HTTP 503 to the call. Retry later.`,
  },
  { code: 'upstream_timeout', detail: 'Graph API did not answer within 10000 ms.' },
];
