import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { readEnvironment, toInteger, toList } from '../config/environment';
import type { GraphApiUrl } from './kinds/meta/graph-api-base';

export const DEFAULT_OPT_OUT_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'];
export const DEFAULT_OPT_IN_KEYWORDS = ['START', 'UNSTOP', 'SUBSCRIBE'];
/** 100 MiB: the largest file WhatsApp's Cloud API carries (a document). */
export const DEFAULT_MEDIA_MAX_BYTES = 100 * 1024 * 1024;
/** 15 minutes: how often a WhatsApp channel's template catalog is synced again. */
export const DEFAULT_TEMPLATE_SYNC_MS = 15 * 60 * 1000;

/** A comma-separated list of words a client types (opt-out or opt-in), at most 50. */
const KeywordList = () =>
  applyDecorators(
    IsOptional(),
    Transform(toList),
    IsArray(),
    ArrayMaxSize(50),
    IsString({ each: true }),
    MaxLength(64, { each: true }),
  );

/** The variables the channels read: Meta's Graph API, its app secrets, and the opt-out words. */
export class ChannelsEnvironment {
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] })
  GRAPH_API_URL: string = 'https://graph.facebook.com/v23.0';
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(100)
  @Max(120_000)
  GRAPH_API_TIMEOUT_MS: number = 10_000;
  /** The Meta app secrets that sign webhooks (comma-separated: any of them, for rotation). */
  @IsOptional()
  @Transform(toList)
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MinLength(8, { each: true })
  META_APP_SECRET: string[] = [];
  /** The largest media file a download streams (GET /v1/channels/whatsapp/{id}/media/{media_id}). */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  MEDIA_MAX_BYTES: number = DEFAULT_MEDIA_MAX_BYTES;
  /**
   * How often each WhatsApp channel with a business_account_id has its template catalog synced
   * again; 0: only when asked (create, modify, POST .../templates/sync, template webhooks).
   */
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(0)
  @Max(7 * 24 * 60 * 60 * 1000)
  TEMPLATE_SYNC_MS: number = DEFAULT_TEMPLATE_SYNC_MS;
  @KeywordList() OPT_OUT_KEYWORDS: string[] = DEFAULT_OPT_OUT_KEYWORDS;
  @KeywordList() OPT_IN_KEYWORDS: string[] = DEFAULT_OPT_IN_KEYWORDS;
}

export interface ChannelsConfig {
  /**
   * GRAPH_API_URL without a trailing slash, version path included; with the sandbox on, its
   * stand-in's address, known once the service listens (MetaStandIn).
   */
  graphApiUrl: GraphApiUrl;
  /** The longest one send can take (GRAPH_API_TIMEOUT_MS): callers size leases and grace on it. */
  sendTimeoutMs: number;
  /** MEDIA_MAX_BYTES: a media download larger than this answers 413 or is cut. */
  mediaMaxBytes: number;
  /**
   * META_APP_SECRET (and, with the sandbox on and none set, the secret it generated): empty means
   * every webhook notification is refused (401).
   */
  metaAppSecrets: string[];
  /** Upper-cased: an inbound text equal to one of them (trimmed, any case) opts out / back in. */
  optOutKeywords: ReadonlySet<string>;
  optInKeywords: ReadonlySet<string>;
  /** TEMPLATE_SYNC_MS: 0 turns the periodic template catalog sync off. */
  templateSyncMs: number;
}

export const CHANNELS_CONFIG = Symbol('CHANNELS_CONFIG');

const keywords = (words: string[]) => new Set(words.map((word) => word.trim().toUpperCase()));

/** Throws ConfigError naming the bad variable. */
export function readChannelsConfig(env: NodeJS.ProcessEnv): ChannelsConfig {
  const vars = readEnvironment(ChannelsEnvironment, env);
  return {
    graphApiUrl: vars.GRAPH_API_URL.replace(/\/+$/, ''),
    sendTimeoutMs: vars.GRAPH_API_TIMEOUT_MS,
    mediaMaxBytes: vars.MEDIA_MAX_BYTES,
    metaAppSecrets: vars.META_APP_SECRET,
    optOutKeywords: keywords(vars.OPT_OUT_KEYWORDS),
    optInKeywords: keywords(vars.OPT_IN_KEYWORDS),
    templateSyncMs: vars.TEMPLATE_SYNC_MS,
  };
}

/**
 * What a stand-in for Meta changes in the channels' configuration (the built-in sandbox,
 * docs/sandbox.md): where Graph is, and the app secret it signs notifications with when no
 * META_APP_SECRET is set. Provided, when the sandbox is on, by a module above channels; channels
 * only read it.
 */
export interface MetaStandIn {
  graphApiUrl: () => string;
  /** A secret generated at start; never logged. */
  generatedAppSecret?: string;
}

export const META_STAND_IN = Symbol('META_STAND_IN');

/** The configuration as the channels use it: the stand-in's Graph and secret, when there is one. */
export function withMetaStandIn(
  config: ChannelsConfig,
  standIn: MetaStandIn | null | undefined,
): ChannelsConfig {
  if (!standIn) return config;
  return {
    ...config,
    graphApiUrl: standIn.graphApiUrl,
    metaAppSecrets: standIn.generatedAppSecret
      ? [...config.metaAppSecrets, standIn.generatedAppSecret]
      : config.metaAppSecrets,
  };
}
