import type { AgentEventDocumentations } from '../../agent-events';
import { DeliveryDto } from '../../channels';

const CHANNEL = '0190c8a0-0000-7000-8000-000000000001';

/** A follow-up's message, read by the client: as DeliveryEvents maps it (toDeliveryResponse). */
const READ_DELIVERY: DeliveryDto = {
  id: '019ab0d1-4c2a-7e8f-9b1d-3a5c7e9f1b2d',
  follow_up_id: '019ab0c9-2b7e-7a1c-8d3f-6e5a4b3c2d1e',
  channel_id: CHANNEL,
  phone: '+34612345678',
  occurrence_at: 1763888400000,
  status: 'read',
  attempts: 1,
  attempt_history: [],
  last_error: null,
  wa_message_id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA',
  sent_at: 1763888401200,
  delivered_at: 1763888402900,
  read_at: 1763888460000,
  pricing: { category: 'utility', billable: true, pricing_model: 'PMP' },
  message_type: 'template',
  created_at: 1763888400000,
  updated_at: 1763888460000,
};

/** The agent event the delivery worker and Meta's statuses emit, for the OpenAPI document. */
export const DELIVERY_AGENT_EVENTS: Pick<AgentEventDocumentations, 'delivery.updated'> = {
  'delivery.updated': {
    summary: 'A message to a client was sent, delivered, read, failed or skipped',
    description:
      'The worker sent, failed or skipped a delivery (a template the catalog says is not approved, a MARKETING template to someone who stopped them), or Meta reported it `delivered`, `read` or `failed`; a 131047 that sends the template next shows `status: pending`. Retries and cancellations are not told. `data` is the delivery as the deliveries lists show it, with an empty `attempt_history` (the lists have it); `follow_up_id` is null for a message sent now.',
    data: DeliveryDto,
    example: {
      type: 'delivery.updated',
      organization_id: 'org_acme',
      agent_id: 'agent_support_es',
      channel_id: CHANNEL,
      data: READ_DELIVERY,
    },
  },
};
