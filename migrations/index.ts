import { InitialSchema1763800000000 } from './1763800000000-initial-schema';
import { DeliveryOutbox1763900000000 } from './1763900000000-delivery-outbox';
import { OAuth2Grants1764000000000 } from './1764000000000-oauth2-grants';
import { ToolExecutions1764000000002 } from './1764000000002-tool-executions';
import { DeliverySentBy1764000000003 } from './1764000000003-delivery-sent-by';
import { ToolExecutionTruncated1764100000000 } from './1764100000000-tool-execution-truncated';
import { DeliveryAttemptsAndHeartbeats1764100000300 } from './1764100000300-delivery-attempts-and-heartbeats';
import { Conversations1764200000000 } from './1764200000000-conversations';
import { WebhookInbox1764200000100 } from './1764200000100-webhook-inbox';
import { DeliveryConversations1764200000200 } from './1764200000200-delivery-conversations';
import { ChannelLifecycle1764200000300 } from './1764200000300-channel-lifecycle';
import { AgentEvents1764200000400 } from './1764200000400-agent-events';
import { IdempotencyKeys1764300000000 } from './1764300000000-idempotency-keys';
import { ToolExecutionsCascade1764400000000 } from './1764400000000-tool-executions-cascade';
import { ToolExecutionsToolIndex1764500000100 } from './1764500000100-tool-executions-tool-index';
import { RetentionIndexes1764500000110 } from './1764500000110-retention-indexes';
import { IdempotencyResource1764500000200 } from './1764500000200-idempotency-resource';
import { OneOwnerPerMetaId1764500000500 } from './1764500000500-one-owner-per-meta-id';
import { WebhookItemsSetAside1764500000900 } from './1764500000900-webhook-items-set-aside';
import { OpenChannelKinds1764600000000 } from './1764600000000-open-channel-kinds';
import { InboundContent1764700100000 } from './1764700100000-inbound-content';
import { EarlyFailedStatuses1764700100100 } from './1764700100100-early-failed-statuses';
import { ChannelIdentities1764700200000 } from './1764700200000-channel-identities';
import { ChannelWatermarks1764700300000 } from './1764700300000-channel-watermarks';
import { WhatsappTemplates1764800000000 } from './1764800000000-whatsapp-templates';
import { DeliveryRichContent1764800100000 } from './1764800100000-delivery-rich-content';
import { TemplateSyncAndMarketingOptOuts1764800300000 } from './1764800300000-template-sync-and-marketing-opt-outs';
import { ToolExecutionMcpRequestId1764900100000 } from './1764900100000-tool-execution-mcp-request-id';
import { IdempotencyCanonicalFingerprint1765000200000 } from './1765000200000-idempotency-canonical-fingerprint';

/** Every migration in order. Migrations are never edited after they land; add a new one. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  DeliveryOutbox1763900000000,
  OAuth2Grants1764000000000,
  ToolExecutions1764000000002,
  DeliverySentBy1764000000003,
  ToolExecutionTruncated1764100000000,
  DeliveryAttemptsAndHeartbeats1764100000300,
  Conversations1764200000000,
  WebhookInbox1764200000100,
  DeliveryConversations1764200000200,
  ChannelLifecycle1764200000300,
  AgentEvents1764200000400,
  IdempotencyKeys1764300000000,
  ToolExecutionsCascade1764400000000,
  ToolExecutionsToolIndex1764500000100,
  RetentionIndexes1764500000110,
  IdempotencyResource1764500000200,
  OneOwnerPerMetaId1764500000500,
  WebhookItemsSetAside1764500000900,
  OpenChannelKinds1764600000000,
  InboundContent1764700100000,
  EarlyFailedStatuses1764700100100,
  ChannelIdentities1764700200000,
  ChannelWatermarks1764700300000,
  WhatsappTemplates1764800000000,
  DeliveryRichContent1764800100000,
  TemplateSyncAndMarketingOptOuts1764800300000,
  ToolExecutionMcpRequestId1764900100000,
  IdempotencyCanonicalFingerprint1765000200000,
];
