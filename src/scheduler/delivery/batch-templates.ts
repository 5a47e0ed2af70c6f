import type { TemplateLookup, WhatsappTemplateCatalog } from '../../channels';
import type { ClaimedDelivery } from './delivery-outbox';

/** What the channels' catalogs say of a claimed batch's templates, by delivery id. */
export type BatchTemplates = Map<string, TemplateLookup>;

/** One catalog query for the batch's deliveries that carry a template. */
export async function readBatchTemplates(
  catalog: WhatsappTemplateCatalog,
  claimed: readonly ClaimedDelivery[],
): Promise<BatchTemplates> {
  const withTemplate = claimed.filter(
    (
      delivery,
    ): delivery is ClaimedDelivery & { template: NonNullable<ClaimedDelivery['template']> } =>
      delivery.template !== null,
  );
  const lookups = await catalog.lookupMany(
    withTemplate.map((delivery) => ({
      channelId: delivery.channelId,
      name: delivery.template.name,
      language: delivery.template.language,
    })),
  );
  return new Map(withTemplate.map((delivery, index) => [delivery.id, lookups[index]]));
}

/**
 * Why a template about to go must not (its delivery fails without calling Meta, and the next
 * occurrence tries again): the catalog knows it no longer exists in that language, or its status
 * is not APPROVED (PAUSED for low quality, DISABLED...). Undefined when it may go, or when there is
 * no catalog to say.
 */
export function templateRefusal(
  lookup: TemplateLookup | undefined,
  template: { name: string; language: string },
): { code: string; message: string } | undefined {
  if (!lookup?.catalog) return undefined;
  const label = `The template "${template.name}" (${template.language})`;
  if (!lookup.template) {
    return {
      code: 'template_not_found',
      message: `${label} no longer exists in the channel's WhatsApp Business Account${lookup.languages.length > 0 ? ` (it has ${lookup.languages.join(', ')})` : ''}; not sent.`,
    };
  }
  if (lookup.template.status !== 'APPROVED') {
    return {
      code: 'template_not_approved',
      message: `${label} is ${lookup.template.status}, not APPROVED; not sent. A later occurrence sends it once Meta approves it again.`,
    };
  }
  return undefined;
}
