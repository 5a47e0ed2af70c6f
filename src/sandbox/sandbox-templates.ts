import { graphRefusal, GraphAnswer } from './graph/graph-errors';
import type { GraphTemplate } from './graph/graph-template-listing';
import type { ReceivedTemplate } from './graph/graph-template-shapes';
import type { PricingCategory } from './meta-notifications';

/**
 * The template catalog every sandbox WhatsApp Business Account lists: `hello_world`, as Meta gives
 * every new account (its sample, verbatim), and a few realistic ones: a UTILITY reminder with body
 * parameters, a MARKETING offer with an IMAGE header and a URL button.
 */
export const SANDBOX_TEMPLATES: readonly GraphTemplate[] = [
  {
    id: '1190374235012458',
    name: 'hello_world',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hello World' },
      {
        type: 'BODY',
        text: 'Welcome and congratulations!! This message demonstrates your ability to send a WhatsApp message notification from the Cloud API, hosted by Meta. Thank you for taking the time to test with us.',
      },
      { type: 'FOOTER', text: 'WhatsApp Business Platform sample message' },
    ],
  },
  {
    id: '1190374235012459',
    name: 'appointment_reminder',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [
      {
        type: 'BODY',
        text: 'Hi {{1}}, this is a reminder of your appointment on {{2}}. Reply to this message if you need to change it.',
        example: { body_text: [['Ana', 'Friday 3 July at 10:00']] },
      },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Confirm' },
          { type: 'QUICK_REPLY', text: 'Reschedule' },
        ],
      },
    ],
  },
  {
    id: '1190374235012460',
    name: 'spring_sale',
    language: 'en_US',
    status: 'APPROVED',
    category: 'MARKETING',
    parameter_format: 'NAMED',
    components: [
      {
        type: 'HEADER',
        format: 'IMAGE',
        example: { header_handle: ['4::aW1hZ2UvanBlZw==:ARb-sandbox-example'] },
      },
      {
        type: 'BODY',
        text: 'Hi {{first_name}}, our spring sale has started: {{discount}} off everything until Sunday.',
        example: {
          body_text_named_params: [
            { param_name: 'first_name', example: 'Ana' },
            { param_name: 'discount', example: '20%' },
          ],
        },
      },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
      {
        type: 'BUTTONS',
        buttons: [{ type: 'URL', text: 'Shop the sale', url: 'https://shop.example.com/sale' }],
      },
    ],
  },
];

const MEDIA_FORMATS = ['IMAGE', 'VIDEO', 'DOCUMENT'];

/**
 * A template send checked against the catalog as Meta does: 132001 for a name and language it
 * does not have, 132000 when the body's parameters are not the template's, 132012 for a media
 * header without its parameter. The pricing category of the message otherwise.
 */
export function checkTemplateSend(
  sent: ReceivedTemplate,
  catalog: readonly GraphTemplate[] = SANDBOX_TEMPLATES,
): GraphAnswer | { category: PricingCategory } {
  const template = catalog.find(
    (candidate) =>
      candidate.name === sent.name &&
      candidate.language === sent.languageCode &&
      candidate.status === 'APPROVED',
  );
  if (!template) {
    return graphRefusal(404, 132001, '(#132001) Template name does not exist in the translation', {
      error_data: {
        messaging_product: 'whatsapp',
        details: `template name (${sent.name}) does not exist in ${sent.languageCode}`,
      },
    });
  }
  const body = template.components.find((component) => component.type === 'BODY');
  const placeholders = [
    ...new Set(
      [...String(body?.text ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((match) => match[1]),
    ),
  ];
  const given =
    template.parameter_format === 'NAMED'
      ? Object.keys(sent.namedParameters ?? {})
      : sent.bodyParameters;
  const sameNames =
    template.parameter_format !== 'NAMED' ||
    placeholders.every((name) => sent.namedParameters?.[name] !== undefined);
  if (given.length !== placeholders.length || !sameNames) {
    return graphRefusal(
      400,
      132000,
      '(#132000) Number of parameters does not match the expected number of params',
      {
        error_data: {
          messaging_product: 'whatsapp',
          details: `body: number of localizable_params (${given.length}) does not match the expected number of params (${placeholders.length})`,
        },
      },
    );
  }
  const header = template.components.find((component) => component.type === 'HEADER');
  const format = typeof header?.format === 'string' ? header.format : undefined;
  if (format !== undefined && MEDIA_FORMATS.includes(format)) {
    const type = typeof sent.header?.type === 'string' ? sent.header.type : undefined;
    if (type !== format.toLowerCase()) {
      return graphRefusal(
        400,
        132012,
        '(#132012) Parameter format does not match format in the created template',
        {
          error_data: {
            messaging_product: 'whatsapp',
            details: `header: Format mismatch, expected ${format}, received ${type?.toUpperCase() ?? 'UNKNOWN'}`,
          },
        },
      );
    }
  }
  return { category: template.category.toLowerCase() as PricingCategory };
}
